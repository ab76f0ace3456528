// What the judge process (driver_judge_main.cpp) and the parent that runs it
// (npu/sim/device/judge_process.hpp) agree on: the descriptors it reads and its exit codes.
#pragma once

namespace aopt::sim {

// The judge's inputs, as the parent's pass_fds number them (its spec follows them, fd 6).
struct judge_fd {
  static constexpr int delivery = 3;      // the candidate's delivery, undecoded
  static constexpr int expected = 4;      // encode_expected of the reference's outputs
  static constexpr int first_inputs = 5;  // input set 0 (shared_inputs.hpp)
  static constexpr int spec = 6;
};

// An allocation failed: the address-space limit was reached. The candidate's failure.
inline constexpr int judge_memory_exit_code = 4;

}  // namespace aopt::sim
