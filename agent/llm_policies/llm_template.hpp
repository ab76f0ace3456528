// Evolvable template synthesis with an LLM (paper §3.3, "template" role with policy "llm"):
// the model rewrites a tiling program T without an EVOLVE-BLOCK so that its tiling decisions
// are marked tunables inside one.
//
// llm_synthesize_template renders the template_synthesis prompt and accepts the answer (a
// whole file, or SEARCH/REPLACE blocks against T) only when it holds a well-formed EVOLVE-BLOCK
// with at least one tunable (tunables.hpp); otherwise the failure names why.
//
// llm_template_mutator_policy puts that step in front of any mutator policy: a request whose T
// has no EVOLVE-BLOCK is forwarded with the synthesized template instead (asked once per T and
// kept in the policy state, so a resumed episode does not ask again); the inner policy's state
// travels nested:
//   {"kind": "llm-template-policy", "version": 1, "for": hash of T, "template": the template,
//    "inner": the inner policy's state}
// Its name is the inner policy's name + "+llm-template", so records say which part was the LLM.
//
// Thread-safety: may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "agent/episode/roles.hpp"
#include "agent/heuristics/template_synthesis.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "npu/op_package.hpp"

namespace aopt::agent {

// A T that already has an EVOLVE-BLOCK is returned unchanged (synthesized = false) without a
// call.
result<synthesized_template> llm_synthesize_template(llm_backend& llm, const llm::call_context& who,
                                                     const npu::op_package& op,
                                                     const std::string& tiling,
                                                     const std::string& kernel,
                                                     uint64_t sample_index);

class llm_template_mutator_policy final : public mutator_policy {
 public:
  llm_template_mutator_policy(std::shared_ptr<llm_backend> llm,
                              std::shared_ptr<mutator_policy> inner);
  std::string name() const override { return inner_->name() + "+llm-template"; }
  result<mutation_reply> mutate(const mutation_request& request) override;

 private:
  std::shared_ptr<llm_backend> llm_;
  std::shared_ptr<mutator_policy> inner_;
};

}  // namespace aopt::agent
