#include "agent/heuristic_refiner.hpp"

#include <algorithm>
#include <set>

#include "agent/code_diff.hpp"
#include "agent/optimization_rules.hpp"
#include "agent/rewind_rules.hpp"

namespace aopt::agent {

namespace {

// Position of the first diagnosis tag the rule shares, tags.size() when none.
size_t tag_rank(const kernel_rule& rule, const std::vector<std::string>& tags) {
  for (size_t i = 0; i < tags.size(); ++i) {
    if (std::find(rule.tags.begin(), rule.tags.end(), tags[i]) != rule.tags.end()) return i;
  }
  return tags.size();
}

bool shares_tag(const kernel_rule& rule, const std::vector<std::string>& tags) {
  return tag_rank(rule, tags) < tags.size();
}

}  // namespace

heuristic_refiner::heuristic_refiner(refiner_options options) : options_(options) {}

std::vector<kernel_candidate> heuristic_refiner::refine(const refinement_input& input) const {
  std::vector<kernel_candidate> out;
  std::set<std::string> seen = {input.kernel};
  auto offer = [&](std::string kernel, std::string origin, std::vector<std::string> tuple_ids) {
    if (out.size() >= options_.max_candidates || !seen.insert(kernel).second) return;
    out.push_back({std::move(kernel), std::move(origin), std::move(tuple_ids)});
  };
  auto try_rule = [&](const kernel_rule& rule, const std::string& origin, std::vector<std::string> ids) {
    if (!rule.applies(input.kernel)) return false;
    result<std::string> k = rule.apply(input.kernel);
    if (!k.ok()) return false;
    size_t before = out.size();
    offer(std::move(*k), origin, std::move(ids));
    return out.size() > before;
  };

  for (const experience_tuple& t : input.tuples) {
    if (!t.code_diff.empty()) {
      result<patch_outcome> patched = apply_unified_diff(input.kernel, t.code_diff, {options_.max_fuzz});
      if (patched.ok() && patched->applied) {
        size_t before = out.size();
        offer(std::move(patched->text), "tuple:" + t.id, {t.id});
        if (out.size() > before) continue;
      }
    }
    // The diff did not transfer: the rule behind the tuple, or rules curing its symptoms.
    std::vector<const kernel_rule*> rules;
    if (const kernel_rule* rewind = find_rewind_rule(t.provenance.rule)) {
      if (const kernel_rule* forward = find_optimization_rule(rewind->counterpart)) rules.push_back(forward);
    }
    if (rules.empty()) {
      for (const kernel_rule& r : optimization_rules()) {
        if (shares_tag(r, t.tags)) rules.push_back(&r);
      }
    }
    for (const kernel_rule* r : rules) {
      if (try_rule(*r, "tuple:" + t.id + "+rule:" + r->name, {t.id})) break;
    }
  }

  if (input.tuples.empty() && !options_.rules_without_tuples) return out;
  std::vector<const kernel_rule*> ordered;
  for (const kernel_rule& r : optimization_rules()) ordered.push_back(&r);
  std::stable_sort(ordered.begin(), ordered.end(), [&](const kernel_rule* a, const kernel_rule* b) {
    return tag_rank(*a, input.tags) < tag_rank(*b, input.tags);
  });
  for (const kernel_rule* r : ordered) try_rule(*r, "rule:" + r->name, {});
  return out;
}

}  // namespace aopt::agent
