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
// "improved" means faster than the baseline by more than the measurement's resolution
// (improvement_resolution): a best 0.03 % faster is "not improved: ... within the resolution".
// Every finished operator that did not improve names its roofline fraction; one whose baseline
// already reaches near_roofline_fraction of its bound leads with it ("at 92 % of its bound:
// little to gain"), since no search can find much there.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "agent/episode/episode_state.hpp"

namespace aopt::agent {

// The simulator is deterministic, but its timing model is a model: differences below half a
// percent are within what its per-instruction costs can vouch for, and the run table (3
// decimals of speedup) would show such a best as 1.00x anyway.
inline constexpr double simulated_latency_resolution = 0.005;
// A baseline at this fraction of its roofline bound or above has little left to gain.
inline constexpr double near_roofline_fraction = 0.85;

// The relative latency difference below which baseline and best cannot be told apart: the
// simulator's resolution, or for a best measured on an NPU the larger relative IQR of the two
// measurements (never below the simulator's).
double improvement_resolution(const episode_state& s);

// Whether the episode's best beats its baseline by more than improvement_resolution (a
// measured best the paired comparison judged "faster" always does).
bool improved_beyond_resolution(const episode_state& s);

std::string outcome_reason(const episode_state& s);

}  // namespace aopt::agent
