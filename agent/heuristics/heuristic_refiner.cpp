#include "agent/heuristics/heuristic_refiner.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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
  const kernel_rule* rule = nullptr;  // null for a diff transfer
};

std::string origin_of(const experience_tuple& t, const transfer& done) {
  return "tuple:" + t.id + (done.rule == nullptr ? "" : "+rule:" + done.rule->name);
}

// Every way a tuple changes a kernel: its diff, then each transfer rule that applies; the first
// is the tuple's primary transfer. What a tuple makes of a kernel depends only on its diff and
// its transfer rules, never on its id, and tuples of one motif share both; so within one
// refine() each (kernel, diff, rules) is worked out once. The pairs of step 3 would otherwise
// match every rule again for every partner: on a real 20 KB kernel (DrivingSDK's
// multi_scale_deformable_attn) with 43 tuples retrieved, one refine took over half an hour.
class transfer_memo {
 public:
  explicit transfer_memo(size_t max_fuzz) : max_fuzz_(max_fuzz) {}

  const std::vector<transfer>& of(const experience_tuple& t, const std::string& kernel) {
    std::vector<const kernel_rule*> rules = transfer_rules(t);
    key k{kernel, t.code_diff, rules};
    auto it = memo_.find(k);
    if (it == memo_.end()) {
      it = memo_.emplace(std::move(k), compute(t.code_diff, rules, kernel)).first;
    }
    return it->second;
  }

 private:
  using key = std::tuple<std::string, std::string, std::vector<const kernel_rule*>>;

  std::vector<transfer> compute(const std::string& code_diff,
                                const std::vector<const kernel_rule*>& rules,
                                const std::string& kernel) const {
    std::vector<transfer> out;
    if (!code_diff.empty()) {
      result<patch_outcome> patched = apply_unified_diff(kernel, code_diff, {max_fuzz_});
      if (patched.ok() && patched->applied && patched->text != kernel) {
        out.push_back({std::move(patched->text), nullptr});
      }
    }
    for (const kernel_rule* r : rules) {
      if (!r->applies(kernel)) continue;
      result<std::string> k = r->apply(kernel);
      if (k.ok() && *k != kernel) out.push_back({std::move(*k), r});
    }
    return out;
  }

  size_t max_fuzz_;
  std::map<key, std::vector<transfer>> memo_;
};

}  // namespace

heuristic_refiner::heuristic_refiner(refiner_options options) : options_(options) {}

std::vector<kernel_candidate> heuristic_refiner::refine(const refinement_input& input) const {
  transfer_memo transfers(options_.max_fuzz);
  // Each tuple's transfers, in retrieval order; tuples that do not transfer are left out.
  struct tuple_transfers {
    const experience_tuple* tuple;
    const std::vector<transfer>* all;
  };
  std::vector<tuple_transfers> per_tuple;
  for (const experience_tuple& t : input.tuples) {
    const std::vector<transfer>& all = transfers.of(t, input.kernel);
    if (!all.empty()) per_tuple.push_back({&t, &all});
  }

  std::vector<kernel_candidate> out;
  std::set<std::string> seen = {input.kernel};
  const auto full = [&] { return out.size() >= options_.max_candidates; };
  auto offer = [&](std::string kernel, std::string origin, std::vector<std::string> ids) {
    if (full() || !seen.insert(kernel).second) return;
    out.push_back({std::move(kernel), std::move(origin), std::move(ids)});
  };
  // The tuples applied one after another, each transferred again onto the kernel the earlier
  // ones produced, since its diff or rule may need the other's edits in place (or may no longer
  // apply: then skipped). Offered when at least two contributed.
  auto combine = [&](const std::vector<const experience_tuple*>& tuples) {
    if (full()) return;
    std::string kernel = input.kernel;
    std::string origin;
    std::vector<std::string> ids;
    for (const experience_tuple* t : tuples) {
      const std::vector<transfer>& done = transfers.of(*t, kernel);
      if (done.empty()) continue;
      origin += (origin.empty() ? "" : " & ") + origin_of(*t, done.front());
      kernel = done.front().kernel;
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
    offer(p.all->front().kernel, origin_of(*p.tuple, p.all->front()), {p.tuple->id});
  }
  // 3. Each pair (all pairs already covered by 1 when there are only two).
  if (per_tuple.size() >= 3) {
    for (size_t i = 0; i < per_tuple.size() && !full(); ++i) {
      for (size_t j = i + 1; j < per_tuple.size() && !full(); ++j) {
        combine({per_tuple[i].tuple, per_tuple[j].tuple});
      }
    }
  }
  // 4. Free parameters varied and alternative rules, tuple by tuple.
  for (const tuple_transfers& p : per_tuple) {
    for (size_t k = 0; k < p.all->size(); ++k) {
      const transfer& t = (*p.all)[k];
      const std::string origin = origin_of(*p.tuple, t);
      if (k > 0) offer(t.kernel, origin, {p.tuple->id});
      if (t.rule == nullptr || !t.rule->variants) continue;
      for (rule_variant& v : t.rule->variants(input.kernel)) {
        offer(std::move(v.kernel), origin + "[" + v.label + "]", {p.tuple->id});
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
