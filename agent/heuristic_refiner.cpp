#include "agent/heuristic_refiner.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "agent/code_diff.hpp"
#include "agent/optimization_rules.hpp"
#include "agent/rewind_rules.hpp"

namespace aopt::agent {

namespace {

// Position of the first tag the rule shares, tags.size() when none.
size_t tag_rank(const kernel_rule& rule, const std::vector<std::string>& tags) {
  for (size_t i = 0; i < tags.size(); ++i) {
    if (std::find(rule.tags.begin(), rule.tags.end(), tags[i]) != rule.tags.end()) return i;
  }
  return tags.size();
}

// The optimization rules that carry the tuple's motif to a kernel its diff does not fit: the
// counterpart of its rewind rule first, then the rules curing one of its tags (in the tuple's
// tag order), since a kernel may show the tuple's symptom written another way (full barriers
// between TBuf stages rather than after queue stage calls, say).
std::vector<const kernel_rule*> transfer_rules(const experience_tuple& t) {
  std::vector<const kernel_rule*> rules;
  if (const kernel_rule* rewind = find_rewind_rule(t.provenance.rule)) {
    if (const kernel_rule* forward = find_optimization_rule(rewind->counterpart))
      rules.push_back(forward);
  }
  std::vector<const kernel_rule*> curing;
  for (const kernel_rule& r : optimization_rules()) {
    if (tag_rank(r, t.tags) < t.tags.size() && (rules.empty() || rules[0] != &r))
      curing.push_back(&r);
  }
  std::stable_sort(curing.begin(), curing.end(), [&](const kernel_rule* a, const kernel_rule* b) {
    return tag_rank(*a, t.tags) < tag_rank(*b, t.tags);
  });
  rules.insert(rules.end(), curing.begin(), curing.end());
  return rules;
}

struct transfer {
  std::string kernel;
  std::string origin;
};

// The tuple applied to `kernel`, nullopt when neither its diff nor a transfer rule changes it.
std::optional<transfer> transfer_tuple(const experience_tuple& t, const std::string& kernel,
                                       size_t max_fuzz) {
  if (!t.code_diff.empty()) {
    result<patch_outcome> patched = apply_unified_diff(kernel, t.code_diff, {max_fuzz});
    if (patched.ok() && patched->applied && patched->text != kernel) {
      return transfer{std::move(patched->text), "tuple:" + t.id};
    }
  }
  for (const kernel_rule* r : transfer_rules(t)) {
    if (!r->applies(kernel)) continue;
    result<std::string> k = r->apply(kernel);
    if (k.ok() && *k != kernel)
      return transfer{std::move(*k), "tuple:" + t.id + "+rule:" + r->name};
  }
  return std::nullopt;
}

}  // namespace

heuristic_refiner::heuristic_refiner(refiner_options options) : options_(options) {}

std::vector<kernel_candidate> heuristic_refiner::refine(const refinement_input& input) const {
  struct single {
    transfer done;
    std::string id;
  };
  std::vector<single> singles;
  std::set<std::string> distinct;
  for (const experience_tuple& t : input.tuples) {
    std::optional<transfer> done = transfer_tuple(t, input.kernel, options_.max_fuzz);
    if (done && distinct.insert(done->kernel).second) singles.push_back({std::move(*done), t.id});
  }

  std::vector<kernel_candidate> out;
  std::set<std::string> seen = {input.kernel};
  auto offer = [&](std::string kernel, std::string origin, std::vector<std::string> ids) {
    if (out.size() >= options_.max_candidates || !seen.insert(kernel).second) return;
    out.push_back({std::move(kernel), std::move(origin), std::move(ids)});
  };

  if (singles.size() >= 2) {
    // Each tuple is transferred again onto the kernel the earlier ones produced, since its
    // diff or rule may need the other's edits in place (or may no longer apply: then skipped).
    std::string kernel = input.kernel;
    std::string origin;
    std::vector<std::string> ids;
    for (const experience_tuple& t : input.tuples) {
      std::optional<transfer> done = transfer_tuple(t, kernel, options_.max_fuzz);
      if (!done) continue;
      kernel = std::move(done->kernel);
      origin += (origin.empty() ? "" : " & ") + done->origin;
      ids.push_back(t.id);
    }
    if (ids.size() >= 2) offer(std::move(kernel), std::move(origin), std::move(ids));
  }
  for (single& s : singles) offer(std::move(s.done.kernel), std::move(s.done.origin), {s.id});
  return out;
}

}  // namespace aopt::agent
