// llm_mutator_policy: Stage I with an LLM (paper §3.3, Eq. 2). Each call renders the
// tiling_mutation prompt (operator, hardware, the fixed kernel, the current best T with its
// EVOLVE-BLOCK, its latency and the history of tried T and results), asks the model once, and
// applies its answer (SEARCH/REPLACE blocks or a whole file) to T.
//
// A T without an EVOLVE-BLOCK is first given one by the heuristic template synthesis
// (template_synthesis.hpp), and the origin says so; with roles.template.policy = "llm" the
// llm_template_mutator_policy in front of this one does that step with the model instead.
//
// Failures cost the step (the episode records them with the reason): an LLM error (its
// error_kind first), an answer that does not apply (answer_error first), a change outside the
// EVOLVE-BLOCK (outside_evolve_block), or an answer identical to T (unchanged). A spent token
// budget, or a T with nothing to tune, is failed_precondition: the stage ends.
//
// Keeps no state: policy_state is {"kind": "llm-mutator-policy", "version": 1}.
//
// Thread-safety: may be called from several threads at once.
#pragma once

#include <memory>

#include "agent/episode/roles.hpp"
#include "agent/heuristics/template_synthesis.hpp"
#include "agent/llm_policies/llm_backend.hpp"

namespace aopt::agent {

struct llm_mutator_options {
  synthesis_options synthesis;  // for a T without an EVOLVE-BLOCK
};

class llm_mutator_policy final : public mutator_policy {
 public:
  explicit llm_mutator_policy(std::shared_ptr<llm_backend> llm, llm_mutator_options options = {});
  std::string name() const override { return "llm-mutator"; }
  result<mutation_reply> mutate(const mutation_request& request) override;

 private:
  std::shared_ptr<llm_backend> llm_;
  llm_mutator_options options_;
};

}  // namespace aopt::agent
