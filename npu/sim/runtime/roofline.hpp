// The roofline bound of an operator on a hardware profile (docs/design.md §6.1.6): the time no
// implementation can beat, from the operator's minimal GM traffic (op.json's tensor sizes) and
// the vector work a run performed, and the fraction of it a run achieved (eval_result's
// roofline).
#pragma once

#include <cstdint>

#include "hw_profile.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::sim {

// `io_bytes`: bytes the operator must read and write at least once (its inputs and outputs).
// `vector_work_cycles`: the sum over cores of core_timing::vector_work_cycles.
// `latency_us`: the simulated latency of the run; a non-positive latency gives a fraction of 0.
// `cube_work_cycles`: the sum over cores of core_timing::cube_work_cycles (Mmad at peak).
npu::roofline compute_roofline(uint64_t io_bytes, double vector_work_cycles, double latency_us,
                               const hw_profile& hw, double cube_work_cycles = 0);

}  // namespace aopt::sim
