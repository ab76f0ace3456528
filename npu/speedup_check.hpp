// Whether a candidate's speedup over the result it improves on is explained by its profile
// (issue 17 item 5). A real speedup shows up somewhere in the profile: more cores, fewer GM
// bytes, longer DMA bursts, fewer scalar accesses or vector instructions, less time stalled,
// a shorter busy time on the pipe that bounded the old kernel. A candidate several times faster
// whose profile moves the same bytes on the same cores with the same pipe times is suspicious
// (a forged measurement, work hidden from the profiler): the checker flags it for a second,
// cold evaluation and says why.
#pragma once

#include <optional>
#include <string>

#include "npu/protocol/eval_result.hpp"

namespace aopt::npu {

// Speedups up to this factor need no explanation.
constexpr double unexplained_speedup_threshold = 2.0;

// Why `candidate` (ok) being faster than `before` (ok) is not explained by the profile deltas, or
// nothing when it is (or the speedup is small). Each profile change explains at most its own
// ratio; the speedup must be within the product of the largest two.
std::optional<std::string> unexplained_speedup(const eval_result& before,
                                               const eval_result& candidate);

}  // namespace aopt::npu
