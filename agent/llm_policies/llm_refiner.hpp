// llm_refiner_policy: Stage II rewriting with an LLM (paper §3.4.2, Eq. 4). Renders the
// refinement prompt (operator, hardware, the fixed T, the current K, its profile, the
// diagnosis and the retrieved tuples) and applies the answer (SEARCH/REPLACE blocks against K,
// or a whole file) to K. The one candidate has origin "llm" and names the tuples it was given.
//
// Failures cost the step: an LLM error (its error_kind first), an answer that does not apply
// (answer_error first) or one identical to K (unchanged). A spent token budget is
// failed_precondition: the stage ends.
//
// Thread-safety: may be called from several threads at once.
#pragma once

#include <memory>

#include "agent/episode/roles.hpp"
#include "agent/llm_policies/llm_backend.hpp"

namespace aopt::agent {

class llm_refiner_policy final : public refiner_policy {
 public:
  explicit llm_refiner_policy(std::shared_ptr<llm_backend> llm);
  std::string name() const override { return "llm-refiner"; }
  result<std::vector<kernel_candidate>> refine(const refinement_request& request) override;

 private:
  std::shared_ptr<llm_backend> llm_;
};

}  // namespace aopt::agent
