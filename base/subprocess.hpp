// Runs a child process under resource limits, with an optional sandbox for untrusted code.
//
//   aopt::subprocess_options o;
//   o.argv = {"/usr/bin/g++", "-c", "x.cpp"};
//   o.limits.wall_seconds = 30;
//   auto r = aopt::run_subprocess(o);   // blocks until the child ends or is killed
//   if (r.ok() && r->exited && r->exit_code == 0) ...
//
// The child runs in its own process group; a wall-clock timeout, the destructor of a running
// `subprocess` and the end of the child all SIGKILL that whole group, and the child is always
// reaped, so nothing a child does outlives its subprocess object or leaves a zombie.
//
// The sandbox (options.sandbox) is for candidate code: it moves the child into a fresh network
// namespace when the kernel allows it (root or user namespaces; best effort, reported in
// `network_isolated`) and installs a seccomp filter just before exec that makes fork, vfork,
// clone without CLONE_THREAD, socket and connect fail with EPERM (threads stay possible; clone3
// fails with ENOSYS so that the C library falls back to clone, whose flags the filter can see).
//
// Thread-safety: run_subprocess may be called from many threads at once. A `subprocess` object
// is used by one thread at a time. Linux only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt {

// A limit of 0 leaves the inherited limit in place.
struct subprocess_limits {
  double wall_seconds = 0;           // SIGKILL to the process group after this long; timed_out
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU (soft; SIGXCPU, then SIGKILL one second later)
  uint64_t address_space_bytes = 0;  // RLIMIT_AS
  uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE (a write beyond it fails / raises SIGXFSZ)
  // RLIMIT_NPROC counts every process of the user and is not enforced for root, so it is a
  // coarse backstop; the sandbox's seccomp filter is what stops a fork bomb.
  uint64_t max_processes = 0;
};

struct subprocess_options {
  std::vector<std::string> argv;  // argv[0] is the program path (no PATH lookup)
  std::string working_dir;        // empty: the parent's
  bool inherit_environment = true;
  // Added to (or, without inheritance, the whole of) the environment, as "NAME=value".
  std::vector<std::string> environment;
  // Output beyond this many bytes per stream is dropped (the child keeps running) and the
  // stream is marked truncated.
  size_t output_limit_bytes = 1 << 20;
  subprocess_limits limits;
  bool sandbox = false;
};

struct subprocess_result {
  bool exited = false;  // ended by exit(); exit_code is valid
  int exit_code = -1;
  int term_signal = 0;     // the signal that ended it, when !exited
  bool timed_out = false;  // killed by the wall-clock timeout (term_signal is SIGKILL)
  double wall_seconds = 0;
  double cpu_seconds = 0;  // user + system time of the child
  std::string stdout_text;
  std::string stderr_text;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool network_isolated = false;   // sandbox only: the child ran in its own network namespace
  std::vector<std::string> notes;  // what the sandbox could not do, for the log

  bool succeeded() const { return exited && exit_code == 0 && !timed_out; }
  // "exit code 3", "signal SIGSEGV", "timed out after 2.0 s"
  std::string describe() const;
};

// "SIGSEGV" for 11; "signal 77" for a number without a name.
std::string signal_name(int signal_number);

// A running child. Move-only; the destructor kills the child's process group and reaps it.
class subprocess {
 public:
  // Starts the child. Fails (internal / not_found / invalid_argument) when it cannot be
  // started, including when exec fails (a missing program is not_found).
  static result<subprocess> start(const subprocess_options& options);

  subprocess(subprocess&& other) noexcept;
  subprocess& operator=(subprocess&& other) noexcept;
  subprocess(const subprocess&) = delete;
  subprocess& operator=(const subprocess&) = delete;
  ~subprocess();

  pid_t pid() const { return pid_; }

  // Collects output until the child ends or the wall-clock limit passes, then kills the
  // group, reaps the child and reports. REQUIRES: called at most once.
  subprocess_result wait();

 private:
  subprocess() = default;
  void kill_and_reap() noexcept;
  void close_fds() noexcept;

  pid_t pid_ = -1;  // -1 once reaped
  int pidfd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  double start_time_ = 0;
  size_t output_limit_bytes_ = 0;
  double wall_seconds_ = 0;
  bool network_isolated_ = false;
  std::vector<std::string> notes_;
};

// start() + wait().
result<subprocess_result> run_subprocess(const subprocess_options& options);

}  // namespace aopt
