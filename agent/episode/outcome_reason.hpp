// Why an operator's episode ended as it did, in one line for the run table and the reports
// (issue 16: nothing silent).
//
// An operator that did not improve always gets a reason, from the most to the least specific:
// unreadable tunable annotations (file, line, what was expected), a baseline that failed (and
// why its repair failed), Stage I having nothing to propose (no tunables, with what template
// synthesis looked at; an exhausted space), every candidate infeasible (counts by reason,
// before the device and on it), Stage II without tuples or rewrites, the budget spent without
// a faster candidate. An improved operator gets "improved", plus the baseline repair when one
// happened and the strategy's early stop (it ended before its budget: nothing untried remained)
// when there was one. A running episode gets "running".
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "agent/episode/episode_state.hpp"

namespace aopt::agent {

std::string outcome_reason(const episode_state& s);

}  // namespace aopt::agent
