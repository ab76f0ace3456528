// Feasibility before the device for kernel rewrites that change queue depths (the buffer counts
// of InitBuffer), the commonest rewrite of Stage II and of evolve's kernel steps. At its parent's
// tiling such a rewrite allocates exactly the parent's UB allocations with the new counts, so two
// outcomes are known without an evaluation:
//   ub_overflow  the allocations exceed the UB: the device would stop the kernel at InitBuffer;
//   unchanged    every count equals the parent's (a literal 2 where the tiling data already
//                says 2): the same program at this tiling, whose evaluation would repeat the
//                parent's.
// Either is rejected before the device, like a tiling the tiling probe rejects.
//
// The allocations are predicted only when the prediction is exact:
//   * the two kernels are the same text apart from InitBuffer buffer counts and the values of
//     integer constants that are used as nothing else (so no buffer length changes);
//   * the parent's profile (npu::eval_profile::ub_allocations, reported by the simulator) holds
//     one allocation per InitBuffer call, in call order and on the call's line, and they add up
//     to the parent's UB high water (nothing else took UB);
//   * each of the rewrite's counts is a literal, a changed constant, or the parent's own count
//     expression (whose value the allocation report gives).
// Anything else predicts nothing and screens nothing: the device decides.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "agent/episode/tiling_feasibility.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

// The bytes of UB `kernel` allocates at the tiling `parent_kernel` ran with (`parent` is that
// run's profile), or nullopt when that cannot be told exactly (above).
std::optional<uint64_t> predicted_ub_bytes(const std::string& parent_kernel,
                                           const npu::eval_profile& parent,
                                           const std::string& kernel);

// Rejects `kernel` as ub_overflow or unchanged (above); feasible when it fits and changes a
// count, or when nothing is predicted.
feasibility_verdict screen_depth_rewrite(const std::string& parent_kernel,
                                         const npu::eval_profile& parent,
                                         const std::string& kernel);

}  // namespace aopt::agent
