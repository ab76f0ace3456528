// The roofline bound of an operator on a hardware profile (docs/design.md §6.1.6): the time no
// implementation can beat, and the fraction of it a run achieved (eval_result's roofline).
//
// Every part of the bound is a property of the operator on the shapes of the run (issue 30
// item 4), never of the candidate's trace: a candidate that does, or traces, less work than its
// outputs need cannot lower its own bound, and so cannot pass a latency below it off as fast.
//   memory   the operator's inputs and outputs (op.json's tensor sizes), read or written once,
//            over the aggregate HBM bandwidth;
//   vector   op.json's least_work vector passes (op_spec.hpp; one for an operator that
//            computes) of one simple repeat per 256 output bytes, over every vector core;
//   compute  op.json's least_work cube multiply-accumulates at the peak MAC rate of their
//            dtype, over every cube core.
// Each is a lower bound, so an honest run's achieved fraction stays at or below 1; what the
// operator's op.json does not declare is not claimed (the bound is then the memory bound).
#pragma once

#include "hw_profile.hpp"
#include "npu/protocol/eval_result.hpp"
#include "npu/protocol/op_spec.hpp"

namespace aopt::sim {

// `latency_us`: the simulated latency of the run; a non-positive latency gives a fraction of 0.
npu::roofline compute_roofline(const npu::op_spec& op, double latency_us, const hw_profile& hw);

}  // namespace aopt::sim
