// The heuristic policies behind the agent's roles (roles.hpp): offline, deterministic, and
// named for what they are ("heuristic-mutator", "heuristic-diagnoser", "heuristic-bm25",
// "heuristic-refiner") in every log, record and report.
//
// heuristic_mutator_policy keeps no state of its own: everything travels in the request's
// policy_state (JSON, persisted with the episode):
//   {"kind": "heuristic-mutator-policy", "version": 1,
//    "base": T the values are applied to (the best T, or the synthesized template),
//    "kernel": hash of the kernel the population was measured with,
//    "generation": n, "seen": [hashes of history entries older than the generation],
//    "mutator": heuristic_mutator::save()}
// On the first call, and whenever the kernel changed (Stage II found a faster K, so the old
// latencies no longer compare), a new generation starts from the current best T: its
// tunables (synthesize_template when T has no EVOLVE-BLOCK) seed a fresh heuristic_mutator
// with seed = hash(options seed, operator name, generation; the request's sample index when
// there is no state yet) and the best latency. Each call
// then reports the history entries of the generation to the mutator and asks it for one
// proposal. Nothing left to propose (no tunables, with what synthesis looked at; an exhausted
// space) is failed_precondition; tunable annotations that cannot be read are unreadable_input
// naming the host file, the line and what was expected. Either ends the stage without spending
// budget, and the episode keeps the message (episode_state::notes). While a failed baseline is
// repaired (mutation_request::repairing) the start values count as infeasible. A failed trial's
// summary is its failure kind, also for a tiling a gate rejected with certainty before the
// device (the tiling probe; episode.hpp, on_gate): the mutator learns the region from it.
//
// Thread-safety: every policy may be called from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "agent/bank/bm25_retriever.hpp"
#include "agent/bank/experience_tuple.hpp"
#include "agent/episode/roles.hpp"
#include "agent/heuristics/heuristic_diagnoser.hpp"
#include "agent/heuristics/heuristic_mutator.hpp"
#include "agent/heuristics/heuristic_refiner.hpp"
#include "agent/heuristics/template_synthesis.hpp"

namespace aopt::agent {

struct heuristic_mutator_policy_options {
  mutator_options mutator;  // element_bytes is replaced by the operator's smallest dtype
  synthesis_options synthesis;
  uint64_t ub_bytes = 196608;  // UB capacity for the admissibility check; 0 disables it
};

class heuristic_mutator_policy final : public mutator_policy {
 public:
  explicit heuristic_mutator_policy(heuristic_mutator_policy_options options = {});
  std::string name() const override { return "heuristic-mutator"; }
  result<mutation_reply> mutate(const mutation_request& request) override;

 private:
  heuristic_mutator_policy_options options_;
};

class heuristic_diagnoser_policy final : public diagnoser_policy {
 public:
  explicit heuristic_diagnoser_policy(diagnoser_options options = {});
  std::string name() const override { return "heuristic-diagnoser"; }
  result<diagnosis> diagnose(const diagnosis_request& request) override;

 private:
  heuristic_diagnoser diagnoser_;
};

// BM25 over an in-memory copy of the bank; add() extends it while episodes run. The tuples that
// share no term with the diagnosis follow every scored one (score 0, in id order): once Stage II
// has tried what the diagnosis points to, its deeper retrievals (episode.hpp) go on through the
// rest of the bank, whose rules may still apply to the kernel, instead of ending the stage.
class bm25_retriever_policy final : public retriever_policy {
 public:
  explicit bm25_retriever_policy(const std::vector<experience_tuple>& bank = {},
                                 bm25_options options = {});
  std::string name() const override { return "heuristic-bm25"; }
  result<std::vector<tuple_ref>> retrieve(const diagnosis& query, uint32_t top_k) override;
  void add(const experience_tuple& t);

 private:
  mutable std::shared_mutex mutex_;
  bm25_retriever index_;                            // guarded by mutex_
  std::map<std::string, experience_tuple> tuples_;  // guarded by mutex_
};

class heuristic_refiner_policy final : public refiner_policy {
 public:
  explicit heuristic_refiner_policy(refiner_options options = {});
  std::string name() const override { return "heuristic-refiner"; }
  // Tuples whose JSON does not parse are skipped.
  result<std::vector<kernel_candidate>> refine(const refinement_request& request) override;

 private:
  heuristic_refiner refiner_;
};

}  // namespace aopt::agent
