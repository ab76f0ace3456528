#include "agent/motifs/motif_absence.hpp"

#include <algorithm>

#include "agent/motifs/motif_library.hpp"

namespace aopt::agent {

std::string motif_absence(const std::string& kernel, const std::vector<std::string>& rewind_rules) {
  std::vector<const motif*> tried;
  for (const std::string& name : rewind_rules) {
    for (const motif& m : motifs()) {
      if (m.deoptimize.name == name && std::find(tried.begin(), tried.end(), &m) == tried.end())
        tried.push_back(&m);
    }
  }
  if (tried.empty()) return {};
  std::string names;
  std::string absent;
  for (const motif* m : tried) {
    names += (names.empty() ? "" : ", ") + m->name;
    if (m->optimize.applies(kernel)) continue;
    absent += (absent.empty() ? "" : "; ") + m->name + ", which looks for " + m->optimize.looks_for;
  }
  return " (motifs tried: " + names +
         (absent.empty() ? "" : "; not found in this kernel: " + absent) + ")";
}

}  // namespace aopt::agent
