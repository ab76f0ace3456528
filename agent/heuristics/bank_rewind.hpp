// Building the experience bank by rewind (paper §3.3, docs/design.md §1): from an expert kernel
// K(0), remove one optimization motif per step (K(t) -> K(t+1)), evaluate every step on the device,
// keep the pair (K(t+1) slow, K(t) fast) only when the slowdown is significant, and distill
// each kept pair into an experience tuple.
//
// The trajectory follows the kept steps: a step that fails (compile, run, precision) or does not
// slow the kernel is recorded and dropped, and the next motif is removed from K(t) instead, so
// every kept pair differs by exactly one motif that measurably matters.
//
// Every evaluation goes through an evaluation service: its slots bound how many run at once and
// its eval_options apply (`aopt bank build` gives it the engine's device pool as slots).
//
// Thread-safety: the functions are reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/bank/experience_tuple.hpp"
#include "agent/bank/retriever.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "agent/motifs/kernel_rule.hpp"
#include "base/status.hpp"
#include "npu/device.hpp"
#include "npu/op_package.hpp"

namespace aopt::agent {

// The validation rule: K(t+1) is significantly slower than K(t) when its latency exceeds
// K(t)'s by more than `significance` (a fraction) and, when the device reported a spread
// (repetitions > 1), by more than `noise_sigmas` times the two standard deviations combined.
// Both results must be ok.
bool significant_slowdown(const npu::eval_result& fast, const npu::eval_result& slow,
                          double significance, double noise_sigmas = 2.0);

// One de-optimization the rewinder proposes for a kernel: the motif removed and the new kernel.
struct rewind_proposal {
  std::string motif;        // rule name (heuristic) or the LLM's motif name
  std::string category;     // empty when unknown
  std::string description;  // what was removed
  std::string kernel;
  const kernel_rule* rule = nullptr;  // the heuristic rule, null for LLM proposals
  // Non-empty when the proposer failed this step (e.g. a malformed LLM answer): the step is
  // recorded with this reason, and `motif` is not added to the motifs tried, because no motif
  // was removed and the proposer must not be told one was.
  std::string failure;
};

// Proposes the next step from `kernel`, skipping motifs already in `tried`; not_found when no
// motif is left. The heuristic proposer is heuristic_rewind_proposer(); the LLM proposer is
// llm_rewind_proposer (llm_bank.hpp).
using rewind_proposer = std::function<result<rewind_proposal>(
    const std::string& kernel, const std::vector<std::string>& tried, uint32_t step)>;

// Applies the rewind rules (rewind_rules.hpp) in library order, the first that applies to
// `kernel` and is not in `tried`.
rewind_proposer heuristic_rewind_proposer();

struct rewind_options {
  double significance = 0.05;
  double noise_sigmas = 2.0;
  uint32_t max_steps = 12;  // proposals evaluated per trajectory
  std::string policy = "heuristic-rewind";
};

struct rewind_step {
  uint32_t index = 0;  // 1-based proposal number
  std::string motif, category, description;
  std::string kernel;
  npu::eval_result result;
  bool kept = false;
  // "kept", "not_slower", "infeasible: <status>", "unchanged", "proposal_failed: <reason>"
  std::string verdict;
  uint32_t from_step = 0;  // t of the kernel K(t) it was derived from
};

struct rewind_pair {
  uint32_t step = 0;  // t: the pair is (K(t+1), K(t))
  std::string motif, category, description;
  const kernel_rule* rule = nullptr;
  std::string slow_kernel, fast_kernel;
  npu::eval_result slow_result, fast_result;
};

struct rewind_trajectory {
  std::string expert_op;
  npu::eval_result expert_result;
  std::vector<rewind_step> steps;  // every proposal evaluated, in order
  std::vector<rewind_pair> pairs;  // the kept ones
};

// Evaluates the expert, then proposals until none is left or max_steps. failed_precondition when
// the expert itself does not evaluate ok. A step the service gave no result for is infeasible
// (infra_error with the service's reason). `expert` is not null.
result<rewind_trajectory> rewind_expert(evaluation_service& evaluations,
                                        std::shared_ptr<const npu::op_package> expert,
                                        const rewind_proposer& propose,
                                        const rewind_options& options);

// Profile changes from the slow to the fast result ({"mte2.ratio": -0.2, "latency_us": ...}).
std::map<std::string, double> profile_deltas(const npu::eval_result& slow,
                                             const npu::eval_result& fast);

// The heuristic diagnoser's query for the pair's slow kernel and its profile: what Stage II
// would search the bank with when it meets that kernel.
struct slow_kernel_diagnosis {
  std::string query;
  std::vector<std::string> tags;
};
slow_kernel_diagnosis diagnose_slow_kernel(const npu::op_package& expert, const rewind_pair& pair);

// Heuristic distillation: Title/Description/Category/tags from the rule (or the proposal),
// Bottleneck = the rule's symptom followed by the diagnoser's query of the slow kernel,
// CodeDiff = slow -> fast, provenance filled, embedding = lexical_embedding(Bottleneck),
// id = derive_tuple_id.
experience_tuple distill_pair(const npu::op_package& expert, const rewind_pair& pair,
                              const std::string& policy);

// Turns one kept pair of `expert`'s trajectory into a tuple with its provenance and embedding.
using pair_distiller =
    std::function<result<experience_tuple>(const npu::op_package& expert, const rewind_pair&)>;

// distill_pair with `policy` as the provenance policy; never fails.
pair_distiller heuristic_distiller(const std::string& policy);

// One expert rewound and its kept pairs distilled: what the Rewinder role answers.
struct distilled_tuple {
  uint32_t step = 0;  // the pair's t
  experience_tuple tuple;
  std::string slow_query;  // diagnose_slow_kernel(expert, pair).query: a retrieval probe
};
struct distilled_expert {
  rewind_trajectory trajectory;
  std::vector<distilled_tuple> tuples;  // one per pair that distilled, in step order
  std::vector<std::string> failures;    // "<op> step <t>: distillation: <error>" per other pair
};

// rewind_expert, then `distill` on every kept pair. Fails only when rewind_expert fails.
result<distilled_expert> rewind_and_distill(evaluation_service& evaluations,
                                            std::shared_ptr<const npu::op_package> expert,
                                            const rewind_proposer& propose,
                                            const pair_distiller& distill,
                                            const rewind_options& options);

// What a rewind of `expert` yields depends on: the package's sources and spec, the rewind and
// distillation policies (`policy`), the device that judged the steps (`device_scope`, its
// npu::verdict_scope: the profile and the checker, so that tuples an older build of the checker
// kept are rewound again, not kept) and the significance threshold. The bank builder records this
// key once the expert's tuples are stored, and skips the expert on a later build while the key is
// unchanged.
std::string rewind_record_key(const npu::op_package& expert, const std::string& policy,
                              const std::string& device_scope, double significance);

// Retrieval quality: the fraction of probes whose tuple is among the retriever's top k for the
// probe's query (0 when there is no probe).
struct retrieval_probe {
  std::string query;
  std::string tuple_id;
};
double top_k_hit_rate(const retriever& r, const std::vector<retrieval_probe>& probes, size_t k);

}  // namespace aopt::agent
