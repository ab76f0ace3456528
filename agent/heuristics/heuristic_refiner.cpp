#include "agent/heuristics/heuristic_refiner.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "agent/kernel_text/code_diff.hpp"
#include "agent/motifs/optimization_rules.hpp"
#include "agent/motifs/rewind_rules.hpp"

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
  const kernel_rule* rule = nullptr;  // null for a diff transfer
};

// Every way the tuple changes `kernel`: its diff, then each transfer rule that applies; the
// first is the tuple's primary transfer.
std::vector<transfer> transfers_of(const experience_tuple& t, const std::string& kernel,
                                   size_t max_fuzz) {
  std::vector<transfer> out;
  if (!t.code_diff.empty()) {
    result<patch_outcome> patched = apply_unified_diff(kernel, t.code_diff, {max_fuzz});
    if (patched.ok() && patched->applied && patched->text != kernel) {
      out.push_back({std::move(patched->text), "tuple:" + t.id, nullptr});
    }
  }
  for (const kernel_rule* r : transfer_rules(t)) {
    if (!r->applies(kernel)) continue;
    result<std::string> k = r->apply(kernel);
    if (k.ok() && *k != kernel)
      out.push_back({std::move(*k), "tuple:" + t.id + "+rule:" + r->name, r});
  }
  return out;
}

std::optional<transfer> primary_transfer(const experience_tuple& t, const std::string& kernel,
                                         size_t max_fuzz) {
  std::vector<transfer> all = transfers_of(t, kernel, max_fuzz);
  if (all.empty()) return std::nullopt;
  return std::move(all.front());
}

}  // namespace

heuristic_refiner::heuristic_refiner(refiner_options options) : options_(options) {}

std::vector<kernel_candidate> heuristic_refiner::refine(const refinement_input& input) const {
  // Each tuple's transfers, in retrieval order; tuples that do not transfer are left out.
  struct tuple_transfers {
    const experience_tuple* tuple;
    std::vector<transfer> all;
  };
  std::vector<tuple_transfers> per_tuple;
  for (const experience_tuple& t : input.tuples) {
    std::vector<transfer> all = transfers_of(t, input.kernel, options_.max_fuzz);
    if (!all.empty()) per_tuple.push_back({&t, std::move(all)});
  }

  std::vector<kernel_candidate> out;
  std::set<std::string> seen = {input.kernel};
  auto offer = [&](std::string kernel, std::string origin, std::vector<std::string> ids) {
    if (out.size() >= options_.max_candidates || !seen.insert(kernel).second) return;
    out.push_back({std::move(kernel), std::move(origin), std::move(ids)});
  };
  // The tuples applied one after another, each transferred again onto the kernel the earlier
  // ones produced, since its diff or rule may need the other's edits in place (or may no longer
  // apply: then skipped). Offered when at least two contributed.
  auto combine = [&](const std::vector<const experience_tuple*>& tuples) {
    std::string kernel = input.kernel;
    std::string origin;
    std::vector<std::string> ids;
    for (const experience_tuple* t : tuples) {
      std::optional<transfer> done = primary_transfer(*t, kernel, options_.max_fuzz);
      if (!done) continue;
      kernel = std::move(done->kernel);
      origin += (origin.empty() ? "" : " & ") + done->origin;
      ids.push_back(t->id);
    }
    if (ids.size() >= 2) offer(std::move(kernel), std::move(origin), std::move(ids));
  };

  // 1. All together.
  if (per_tuple.size() >= 2) {
    std::vector<const experience_tuple*> all;
    for (const tuple_transfers& p : per_tuple) all.push_back(p.tuple);
    combine(all);
  }
  // 2. Each alone.
  for (const tuple_transfers& p : per_tuple) {
    offer(p.all.front().kernel, p.all.front().origin, {p.tuple->id});
  }
  // 3. Each pair (all pairs already covered by 1 when there are only two).
  if (per_tuple.size() >= 3) {
    for (size_t i = 0; i < per_tuple.size(); ++i) {
      for (size_t j = i + 1; j < per_tuple.size(); ++j) {
        combine({per_tuple[i].tuple, per_tuple[j].tuple});
      }
    }
  }
  // 4. Free parameters varied and alternative rules, tuple by tuple.
  for (const tuple_transfers& p : per_tuple) {
    for (size_t k = 0; k < p.all.size(); ++k) {
      const transfer& t = p.all[k];
      if (k > 0) offer(t.kernel, t.origin, {p.tuple->id});
      if (t.rule == nullptr || !t.rule->variants) continue;
      for (rule_variant& v : t.rule->variants(input.kernel)) {
        offer(std::move(v.kernel), t.origin + "[" + v.label + "]", {p.tuple->id});
      }
    }
  }
  // 5. The free parameters of optimizations the kernel already has (deeper queues where it
  //    double-buffers already, smaller kernel steps over the host's tile), from every retrieved
  //    tuple whose rules have one; the tiling-equivalent ones only where Stage I never runs.
  for (const experience_tuple& t : input.tuples) {
    for (const kernel_rule* r : transfer_rules(t)) {
      if (!r->retunes) continue;
      for (rule_variant& v : r->retunes(input.kernel)) {
        if (v.tiling_equivalent && input.tiling_searched) continue;
        offer(std::move(v.kernel), "tuple:" + t.id + "+rule:" + r->name + "[" + v.label + "]",
              {t.id});
      }
    }
  }
  return out;
}

}  // namespace aopt::agent
