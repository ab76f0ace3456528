#include "agent/llm_policies/llm_refiner.hpp"

#include <utility>

#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {

llm_refiner_policy::llm_refiner_policy(std::shared_ptr<llm_backend> llm) : llm_(std::move(llm)) {}

result<std::vector<kernel_candidate>> llm_refiner_policy::refine(
    const refinement_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-refiner: request without an operator");
  llm::prompt_variables values = {
      {"op_spec", describe_op(*request.op)},
      {"hardware", llm_->hardware_text()},
      {"tiling", request.tiling},
      {"kernel", request.kernel},
      {"profile", describe_result(request.result)},
      {"diagnosis", describe_diagnosis(request.diag)},
      {"tuples", describe_tuples(request.tuples)},
  };
  // A user's template from before the hooks declares neither: it renders as it did.
  const llm::prompt_template* refinement = llm_->prompts().find("refinement");
  if (refinement != nullptr && refinement->variables.count("annotations") != 0) {
    values["annotations"] = describe_annotations(request.annotations);
  }
  if (refinement != nullptr && refinement->variables.count("vetoes") != 0) {
    values["vetoes"] = describe_vetoes(request.vetoes);
  }
  result<llm::chat_response> answer =
      llm_->ask({request.campaign, request.op->spec.name, "refiner"}, "refinement", values,
                request.sample_index);
  if (!answer.ok()) return answer.error();
  llm::answer_result<llm::code_answer> code = llm::extract_source(answer->content, request.kernel);
  if (!code.ok()) return code.error();
  if (code->source == request.kernel)
    return invalid_argument("unchanged: the answer leaves the kernel as it was");

  kernel_candidate candidate;
  candidate.kernel = std::move(code->source);
  candidate.origin = "llm";
  for (const tuple_ref& t : request.tuples) candidate.tuple_ids.push_back(t.id);
  return std::vector<kernel_candidate>{std::move(candidate)};
}

}  // namespace aopt::agent
