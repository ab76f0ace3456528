// The de-optimizations (rewind direction) of the motif library (motif_library.hpp) as a list of
// kernel rules, one per motif in the library's order; what each recognises and edits is listed in
// rewind_edits.hpp. The rewinder applies the de-optimizations one per step to build slow-to-fast
// trajectories; the heuristic refiner applies the optimizations.
//
// Thread-safety: the list is immutable.
#pragma once

#include <string>
#include <vector>

#include "agent/motifs/kernel_rule.hpp"

namespace aopt::agent {

// The rules in the motif library's order.
const std::vector<kernel_rule>& rewind_rules();

// The rule called `name`, nullptr when there is none.
const kernel_rule* find_rewind_rule(const std::string& name);

}  // namespace aopt::agent
