// The confirmation of an accepted improvement (issue 17). A candidate that would become an
// operator's best is evaluated once more, on the device and from a cold build (nothing taken
// from the evaluation cache or the object cache), before the episode accepts it. What the
// episode then sees is the combination of the two results:
//   * the cold run failed: its failure, as kind "unconfirmed", naming what each run said;
//   * both ok: the slower of the two, so that a result that something left behind by an earlier
//     evaluation made faster gains nothing; a disagreement beyond `tolerance` is noted in the
//     diagnostics. It is marked `confirmed`, and so is its entry in the evaluation cache: a
//     campaign that the cache answers with it (a resumed or repeated one) confirms it no more.
#pragma once

#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

// Relative latency difference between the two runs worth a diagnostic (the simulator is
// deterministic: any difference there is suspect; hardware varies by a few percent).
inline constexpr double confirmation_tolerance = 0.02;

npu::eval_result confirmed_result(const npu::eval_result& first, const npu::eval_result& cold);

}  // namespace aopt::agent
