// Why the motifs of retrieved tuples gave no kernel rewrite: for each motif, whether its
// optimization applies to the kernel and, when it does not, the structure it looked for
// (kernel_rule::looks_for). Stage II's reason names them (issue 35), so an operator whose
// kernel has none of the bank's patterns says which patterns and what they needed, rather than
// only how many tuples were retrieved.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

namespace aopt::agent {

// " (motifs tried: a, b; not found in this kernel: b, which looks for <structure>)", from the
// rewind rules that made the retrieved tuples (tuple provenance.rule), each motif once in the
// order given; rules that are no rewind rule of the library are left out. Empty when none is
// left.
std::string motif_absence(const std::string& kernel, const std::vector<std::string>& rewind_rules);

}  // namespace aopt::agent
