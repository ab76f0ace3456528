#include "agent/motifs/rewind_rules.hpp"

#include "agent/motifs/motif_library.hpp"

namespace aopt::agent {

const std::vector<kernel_rule>& rewind_rules() {
  static const std::vector<kernel_rule> rules = [] {
    std::vector<kernel_rule> out;
    for (const motif& m : motifs()) out.push_back(m.deoptimize);
    return out;
  }();
  return rules;
}

const kernel_rule* find_rewind_rule(const std::string& name) {
  for (const kernel_rule& r : rewind_rules()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace aopt::agent
