// The AST screen's parser processes (aopt_screen_unit, ast_screen_unit.hpp), kept running between
// units. Starting one costs about 0.17 s of CPU (the program, libclang and its index), more than
// many units' parse; a pool that keeps them answers unit after unit from the same process.
//
//   screen_parser_pool pool(AOPT_SIM_SCREEN, limits);
//   parser_answer a = pool.parse(request_json);   // any thread; blocks until answered
//   if (a.outcome == parser_answer::kind::answered) ... a.verdict ...
//
// Each unit keeps the bounds a process per unit had: its CPU time (the process arms
// RLIMIT_CPU afresh before every unit), the process's address space (RLIMIT_AS, set at its start)
// and the wall clock (the pool kills a process that has not answered in time). A process past a
// bound is gone, and the unit is `past_bounds`; the next unit gets a new process. A process is
// retired after serving `units_per_process` units or when it holds more than
// `resident_bytes_to_retire`, so that what libclang keeps between units stays bounded.
//
// Protocol on the socket each process receives as descriptor 3: a request, then its answer,
// each an 8-byte little-endian length followed by that many bytes. A process exits when the pool
// closes its end.
//
// The processes are started on a thread of the pool's own: the death signal that takes a child
// with its parent (base/subprocess.hpp) follows the thread that started it, and the screen is
// called from threads that end with their evaluation.
//
// Thread-safety: parse() may be called concurrently; each call uses a process of its own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace aopt::npu {

struct screen_parser_limits {
  uint64_t cpu_seconds = 60;                  // per unit
  uint64_t address_space_bytes = 4ull << 30;  // per process
  double wall_seconds = 600;                  // per unit
  uint32_t units_per_process = 256;
  uint64_t resident_bytes_to_retire = 1ull << 30;
};

struct parser_answer {
  enum class kind {
    answered,     // `verdict` is what the process printed
    past_bounds,  // the unit took the process past its CPU time, memory or wall clock
    failed,       // no answer for another reason: `failure` says which
  };
  kind outcome = kind::failed;
  std::string verdict;
  std::string failure;
};

class screen_parser_pool {
 public:
  screen_parser_pool(std::filesystem::path program, screen_parser_limits limits);
  ~screen_parser_pool();
  screen_parser_pool(const screen_parser_pool&) = delete;
  screen_parser_pool& operator=(const screen_parser_pool&) = delete;

  parser_answer parse(const std::string& request);

  const screen_parser_limits& limits() const;
  // Parser processes started so far.
  uint64_t processes_started() const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

// The process side: answers requests on `socket_fd` with `judge` until the pool closes its end,
// arming `cpu_seconds` of CPU time before each; 0 then.
int serve_screen_requests(int socket_fd, uint64_t cpu_seconds,
                          std::string (*judge)(const std::string& request));

}  // namespace aopt::npu
