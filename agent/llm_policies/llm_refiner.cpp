#include "agent/llm_policies/llm_refiner.hpp"

#include <utility>

#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {

llm_refiner_policy::llm_refiner_policy(std::shared_ptr<llm_backend> llm) : llm_(std::move(llm)) {}

result<std::vector<kernel_candidate>> llm_refiner_policy::refine(
    const refinement_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-refiner: request without an operator");
  const llm::prompt_variables values = {
      {"op_spec", describe_op(*request.op)},
      {"hardware", llm_->hardware_text()},
      {"tiling", request.tiling},
      {"kernel", request.kernel},
      {"profile", describe_result(request.result)},
      {"diagnosis", describe_diagnosis(request.diag)},
      {"tuples", describe_tuples(request.tuples)},
  };
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
