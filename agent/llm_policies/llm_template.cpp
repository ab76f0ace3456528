#include "agent/llm_policies/llm_template.hpp"

#include <utility>

#include "agent/kernel_text/tunables.hpp"
#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "base/content_hash.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {
namespace {

constexpr const char* state_kind = "llm-template-policy";

bool has_evolve_block(const std::string& tiling) {
  result<std::vector<tunable>> tunables = parse_tunables(tiling);
  return tunables.ok() || tunables.error().code() != status_code::not_found;
}

}  // namespace

result<synthesized_template> llm_synthesize_template(llm_backend& llm, const llm::call_context& who,
                                                     const npu::op_package& op,
                                                     const std::string& tiling,
                                                     const std::string& kernel,
                                                     uint64_t sample_index) {
  if (has_evolve_block(tiling)) {
    result<std::vector<tunable>> tunables = parse_tunables(tiling);
    if (!tunables.ok()) return tunables.error();
    return synthesized_template{tiling, std::move(*tunables), false, {}, {}};
  }
  const llm::prompt_variables values = {
      {"op_spec", describe_op(op)},
      {"tiling", tiling},
      {"kernel", kernel},
      {"hardware", llm.hardware_text()},
  };
  result<llm::chat_response> answer = llm.ask(who, "template_synthesis", values, sample_index);
  if (!answer.ok()) return answer.error();
  llm::answer_result<llm::code_answer> code = llm::extract_source(answer->content, tiling);
  if (!code.ok()) return code.error();
  result<std::vector<tunable>> tunables = parse_tunables(code->source);
  if (!tunables.ok()) {
    return status(tunables.error().code(),
                  "bad_template: the synthesized template has no usable EVOLVE-BLOCK: " +
                      tunables.error().message());
  }
  if (tunables->empty())
    return invalid_argument("bad_template: the synthesized EVOLVE-BLOCK marks no tunable");
  return synthesized_template{std::move(code->source), std::move(*tunables), true, {}, {}};
}

llm_template_mutator_policy::llm_template_mutator_policy(std::shared_ptr<llm_backend> llm,
                                                         std::shared_ptr<mutator_policy> inner)
    : llm_(std::move(llm)), inner_(std::move(inner)) {}

result<mutation_reply> llm_template_mutator_policy::mutate(const mutation_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-template: request without an operator");
  const nlohmann::json& state = request.policy_state;
  const bool ours = state.is_object() && state.value("kind", "") == state_kind;

  mutation_request forwarded = request;
  forwarded.policy_state = ours ? state.value("inner", nlohmann::json()) : nlohmann::json();
  nlohmann::json next_state = {{"kind", state_kind}, {"version", 1}};

  if (!has_evolve_block(request.tiling)) {
    const std::string key = content_hash({request.tiling});
    if (ours && state.value("for", "") == key && state.contains("template")) {
      forwarded.tiling = state.at("template").get<std::string>();
    } else {
      result<synthesized_template> made = llm_synthesize_template(
          *llm_, {request.campaign, request.op->spec.name, "template"}, *request.op, request.tiling,
          request.kernel, request.sample_index);
      if (!made.ok()) return made.error();
      forwarded.tiling = std::move(made->source);
    }
    next_state["for"] = key;
    next_state["template"] = forwarded.tiling;
  }

  result<mutation_reply> reply = inner_->mutate(forwarded);
  if (!reply.ok()) return reply.error();
  next_state["inner"] = std::move(reply->policy_state);
  reply->policy_state = std::move(next_state);
  if (request.tiling != forwarded.tiling) reply->origin += " (template: llm)";
  return reply;
}

}  // namespace aopt::agent
