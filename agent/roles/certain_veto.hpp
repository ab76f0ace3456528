// A gate whose judgement is a feasibility verdict (agent/episode/tiling_feasibility.hpp) vetoes
// with certainty: an infeasible candidate is one the device would refuse, or run as its parent.
#pragma once

#include "agent/episode/hooks.hpp"
#include "agent/episode/tiling_feasibility.hpp"

namespace aopt::agent {

// Accepts a feasible candidate; vetoes any other with certainty, under the verdict's kind and
// with its message as the reason.
inline gate_verdict certain_veto_unless_feasible(const feasibility_verdict& v) {
  gate_verdict verdict;
  if (v.feasible()) return verdict;
  verdict.veto = true;
  verdict.certain = true;
  verdict.kind = v.kind;
  verdict.reason = v.message;
  return verdict;
}

}  // namespace aopt::agent
