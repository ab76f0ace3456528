#include "agent/llm_policies/llm_diagnoser.hpp"

#include <utility>

#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {

llm_diagnoser_policy::llm_diagnoser_policy(std::shared_ptr<llm_backend> llm)
    : llm_(std::move(llm)) {}

result<diagnosis> llm_diagnoser_policy::diagnose(const diagnosis_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-diagnoser: request without an operator");
  llm::prompt_variables values = {
      {"op_spec", describe_op(*request.op)},
      {"hardware", llm_->hardware_text()},
      {"tiling", request.tiling},
      {"kernel", request.kernel},
      {"profile", describe_result(request.result)},
  };
  // A user's template from before the hooks does not declare it: it renders as it did.
  const llm::prompt_template* diagnosis_template = llm_->prompts().find("diagnosis");
  if (diagnosis_template != nullptr && diagnosis_template->variables.count("annotations") != 0) {
    values["annotations"] = describe_annotations(request.annotations);
  }
  result<llm::chat_response> answer =
      llm_->ask({request.campaign, request.op->spec.name, "diagnoser"}, "diagnosis", values,
                request.sample_index);
  if (!answer.ok()) return answer.error();
  llm::answer_result<nlohmann::json> j = llm::parse_json_answer(answer->content);
  if (!j.ok()) return j.error();

  diagnosis d;
  auto bottleneck = j->find("bottleneck");
  if (bottleneck != j->end() && bottleneck->is_string()) d.query = bottleneck->get<std::string>();
  if (d.query.empty())
    return invalid_argument("malformed_json: the diagnosis has no \"bottleneck\" text");
  auto tags = j->find("tags");
  if (tags != j->end() && tags->is_array()) {
    for (const nlohmann::json& tag : *tags) {
      if (tag.is_string() && !tag.get<std::string>().empty())
        d.tags.push_back(tag.get<std::string>());
    }
  }
  return d;
}

}  // namespace aopt::agent
