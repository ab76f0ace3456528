// Baseline repair (issue 16): which failures of a baseline a different tiling can fix.
//
// A baseline whose shipped tiling overflows the UB, launches an impossible block dim or breaks
// the 32-byte rule is not a dead operator: Stage I searches the tiling's tunables for a feasible
// value set first, and the first feasible candidate becomes the reference point
// (episode.hpp). Compile errors, precision errors, timeouts and infrastructure failures are
// not the tiling's to fix.
//
// Thread-safety: pure functions.
#pragma once

#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

// True for error kinds a tiling decides: ub_overflow, ub_out_of_bounds, too_many_buffers,
// bad_block_dim, misaligned.
bool tiling_may_fix(const npu::eval_result& r);

}  // namespace aopt::agent
