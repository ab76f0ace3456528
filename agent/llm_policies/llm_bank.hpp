// The LLM's part in building the experience bank (paper §3.4.1), for the bank builder:
//
//   llm_rewind_step  one rewind step: the model removes exactly one optimization motif from the
//                    current kernel of a trajectory (rewind_step prompt). The caller evaluates
//                    the slower kernel and keeps the step only if it is correct and
//                    significantly slower.
//   llm_distill      one (slow, fast) pair -> an experience tuple: the model writes title,
//                    description, bottleneck and tags (distillation prompt); the code diff is
//                    computed here from the two kernels, not taken from the model.
//
// llm_rewind_proposer and llm_pair_distiller adapt them to rewind_and_distill (bank_rewind.hpp).
//
// Failures: a status whose message starts with the llm::error_kind or answer_error word; a
// spent token budget is failed_precondition.
//
// Thread-safety: pure functions of their arguments and the (thread-safe) backend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/bank/experience_tuple.hpp"
#include "agent/heuristics/bank_rewind.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "npu/op_package.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

struct llm_rewind_request {
  std::string campaign;                     // ledger key, e.g. "bank"
  const npu::op_package* op = nullptr;      // the expert operator; T = op->host_source
  std::string kernel;                       // the current kernel of the trajectory
  std::vector<std::string> removed_motifs;  // motifs removed so far on this trajectory
  uint64_t sample_index = 0;                // distinguishes cache entries (the step number)
};

struct llm_rewind_result {
  std::string kernel;       // the de-optimized kernel
  std::string motif;        // short name of the removed motif
  std::string description;  // what was removed, in the model's words
};

// Errors besides the LLM's: malformed_json when the answer names no motif, unchanged when its
// kernel equals the current one.
result<llm_rewind_result> llm_rewind_step(llm_backend& llm, const llm_rewind_request& request);

struct llm_distill_request {
  std::string campaign;
  const npu::op_package* op = nullptr;
  std::string slow_kernel;
  std::string fast_kernel;
  npu::eval_result slow_result;
  npu::eval_result fast_result;
  uint64_t sample_index = 0;
};

// A tuple with title, description, bottleneck, tags (and category when the model gives one)
// from the model, code_diff = unified diff slow -> fast, provenance.policy = "llm-distill",
// the latencies of both results, embedding = lexical_embedding(bottleneck) as for heuristic
// tuples, and id = derive_tuple_id. The caller completes provenance
// (expert_op, step, profile_deltas). Errors besides the LLM's: malformed_json when the answer
// lacks a bottleneck or title; unchanged when the kernels are equal.
result<experience_tuple> llm_distill(llm_backend& llm, const llm_distill_request& request);

// Rewind steps of `op`'s trajectory by llm_rewind_step (campaign "bank", sample index = step).
// A spent token budget ends the trajectory (not_found); any other failure is a failed proposal
// (rewind_proposal::failure), so its name never reaches the model's list of removed motifs.
rewind_proposer llm_rewind_proposer(std::shared_ptr<llm_backend> llm,
                                    std::shared_ptr<const npu::op_package> op);

// llm_distill of each pair (campaign "bank", sample index = step) with the provenance completed:
// expert_op, step, profile_deltas, rule, and the pair's category when the model gave none.
pair_distiller llm_pair_distiller(std::shared_ptr<llm_backend> llm);

}  // namespace aopt::agent
