// The judge in a process of its own (issue 30 item 6): decoding a candidate's delivery, checking
// its outputs and trace, replaying its GM writes and reads and timing it cost what the delivery
// claims (about 0.18 ms of CPU per claimed instruction), so a hostile trace could hold aopt for
// minutes and a gigabyte. The parent hands the delivery, the expected outputs and input set 0
// to the judge executable (npu/sim/runtime/driver_judge_main.cpp) in sealed memfds and runs it
// sandboxed under RLIMIT_CPU and RLIMIT_AS: the kernel enforces the bound, and reaching it is
// the candidate's failure (runtime_error "judge_limit"), never aopt's. Anything else that keeps
// the judge from a verdict is aopt's (infra_error "judge").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/subprocess.hpp"
#include "npu/protocol/eval_result.hpp"
#include "npu/sim/runtime/driver_spec.hpp"

// Only the judge's source reads them (sim_device.hpp, which includes this, is seen by layers
// that do not see the simulator runtime's reference header).
namespace aopt::sim {
struct expected_outputs;
}

namespace aopt::npu {

// The judge's bounds. An honest evaluation stays far below them (the largest honest judge cost
// measured on the corpus and the wild operators: see sim_device_options).
struct judge_limits {
  uint64_t cpu_seconds = 0;
  uint64_t address_space_bytes = 0;
  // The wall clock: a judge on a busy machine gets several times its CPU limit.
  double wall_seconds = 0;
};

struct judge_request {
  const sim::driver_spec* spec = nullptr;  // as the candidate ran (input_fds ignored)
  int delivery_fd = -1;      // the candidate's stdout, undecoded, in a sealed memory file
  int expected_fd = -1;      // the reference's delivery, sealed (expected_cache.hpp)
  int first_inputs_fd = -1;  // the input store's memfd of input set 0
  uint32_t check_threads = 1;
};

// What one judgement cost: the child's CPU time (as the kernel counted it) and its peak
// resident memory (as it reported it).
struct judge_cost {
  double cpu_seconds = 0;
  uint64_t max_rss_bytes = 0;
};

// The verdict of the judge executable `judge` on `request`. `base` says where and how the
// child runs (working dir, sandbox, identity, environment); its argv, descriptors and limits
// are set here. Never throws.
eval_result judge_in_child(const std::filesystem::path& judge, const judge_request& request,
                           const judge_limits& limits, subprocess_options base,
                           judge_cost* cost = nullptr);

}  // namespace aopt::npu
