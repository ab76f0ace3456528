#include "agent/llm_policies/llm_mutator.hpp"

#include <utility>

#include "agent/kernel_text/tunables.hpp"
#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {

llm_mutator_policy::llm_mutator_policy(std::shared_ptr<llm_backend> llm,
                                       llm_mutator_options options)
    : llm_(std::move(llm)), options_(options) {}

result<mutation_reply> llm_mutator_policy::mutate(const mutation_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-mutator: request without an operator");
  result<synthesized_template> base = synthesize_template(request.tiling, options_.synthesis);
  if (!base.ok()) return base.error();

  const llm::prompt_variables values = {
      {"op_spec", describe_op(*request.op)},
      {"hardware", llm_->hardware_text()},
      {"kernel", request.kernel},
      {"tiling", base->source},
      {"best_latency", describe_latency(request.best_latency_us, llm_->latency_is_simulated())},
      {"history", describe_history(request.history)},
  };
  result<llm::chat_response> answer =
      llm_->ask({request.campaign, request.op->spec.name, "mutator"}, "tiling_mutation", values,
                request.sample_index);
  if (!answer.ok()) return answer.error();

  llm::answer_result<llm::code_answer> code = llm::extract_source(answer->content, base->source);
  if (!code.ok()) return code.error();
  llm::answer_result<size_t> changed = llm::check_evolve_block_only(base->source, code->source);
  if (!changed.ok()) return changed.error();
  if (code->source == base->source)
    return invalid_argument("unchanged: the answer leaves the tiling program as it was");

  mutation_reply reply;
  reply.tiling = std::move(code->source);
  reply.policy_state = {{"kind", "llm-mutator-policy"}, {"version", 1}};
  reply.origin = "llm-mutator[" + answer->model + "]";
  if (base->synthesized) reply.origin += " on a heuristic template";
  const std::string tuned = describe_tunable_values(reply.tiling);
  if (!tuned.empty()) reply.origin += ": " + tuned;
  return reply;
}

}  // namespace aopt::agent
