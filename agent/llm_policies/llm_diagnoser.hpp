// llm_diagnoser_policy: Stage II diagnosis with an LLM (paper §3.4.2). Renders the diagnosis
// prompt (operator, hardware, T, K and the measured profile) and reads the answer's JSON object
// {"bottleneck": "...", "tags": [...]}: the bottleneck text becomes the retrieval query.
//
// Failures (the step is recorded as failed with the reason): an LLM error (its error_kind
// first), no JSON object in the answer (malformed_json), or no non-empty "bottleneck"
// (malformed_json too).
//
// Thread-safety: may be called from several threads at once.
#pragma once

#include <memory>

#include "agent/episode/roles.hpp"
#include "agent/llm_policies/llm_backend.hpp"

namespace aopt::agent {

class llm_diagnoser_policy final : public diagnoser_policy {
 public:
  explicit llm_diagnoser_policy(std::shared_ptr<llm_backend> llm);
  std::string name() const override { return "llm-diagnoser"; }
  result<diagnosis> diagnose(const diagnosis_request& request) override;

 private:
  std::shared_ptr<llm_backend> llm_;
};

}  // namespace aopt::agent
