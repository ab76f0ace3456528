#include "agent/llm_policies/llm_bank.hpp"

#include <utility>

#include "agent/bank/bank_index.hpp"
#include "agent/kernel_text/code_diff.hpp"
#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {
namespace {

std::string string_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string motif_list(const std::vector<std::string>& motifs) {
  if (motifs.empty()) return "none";
  std::string text;
  for (const std::string& m : motifs) text += "- " + m + "\n";
  return text;
}

}  // namespace

result<llm_rewind_result> llm_rewind_step(llm_backend& llm, const llm_rewind_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-rewind: request without an operator");
  const llm::prompt_variables values = {
      {"op_spec", describe_op(*request.op)},
      {"hardware", llm.hardware_text()},
      {"tiling", request.op->host_source},
      {"kernel", request.kernel},
      {"removed_motifs", motif_list(request.removed_motifs)},
  };
  result<llm::chat_response> answer = llm.ask({request.campaign, request.op->spec.name, "rewinder"},
                                              "rewind_step", values, request.sample_index);
  if (!answer.ok()) return answer.error();

  llm::answer_result<nlohmann::json> j = llm::parse_json_answer(answer->content);
  if (!j.ok()) return j.error();
  llm_rewind_result step;
  step.motif = string_field(*j, "motif");
  step.description = string_field(*j, "description");
  if (step.motif.empty())
    return invalid_argument("malformed_json: the rewind answer names no \"motif\"");
  llm::answer_result<llm::code_answer> code = llm::extract_source(answer->content, request.kernel);
  if (!code.ok()) return code.error();
  if (code->source == request.kernel)
    return invalid_argument("unchanged: the rewind answer leaves the kernel as it was");
  step.kernel = std::move(code->source);
  return step;
}

result<experience_tuple> llm_distill(llm_backend& llm, const llm_distill_request& request) {
  if (request.op == nullptr) return invalid_argument("llm-distill: request without an operator");
  const std::string diff = make_unified_diff(request.slow_kernel, request.fast_kernel);
  if (diff.empty()) return invalid_argument("unchanged: the slow and fast kernels are equal");
  const llm::prompt_variables values = {
      {"op_spec", describe_op(*request.op)},
      {"hardware", llm.hardware_text()},
      {"slow_kernel", request.slow_kernel},
      {"fast_kernel", request.fast_kernel},
      {"diff", diff},
      {"slow_profile", describe_result(request.slow_result)},
      {"fast_profile", describe_result(request.fast_result)},
  };
  result<llm::chat_response> answer =
      llm.ask({request.campaign, request.op->spec.name, "distiller"}, "distillation", values,
              request.sample_index);
  if (!answer.ok()) return answer.error();
  llm::answer_result<nlohmann::json> j = llm::parse_json_answer(answer->content);
  if (!j.ok()) return j.error();

  experience_tuple t;
  t.title = string_field(*j, "title");
  t.description = string_field(*j, "description");
  t.bottleneck = string_field(*j, "bottleneck");
  t.category = string_field(*j, "category");
  if (t.title.empty() || t.bottleneck.empty())
    return invalid_argument(
        "malformed_json: the distilled tuple lacks a \"title\" or \"bottleneck\"");
  auto tags = j->find("tags");
  if (tags != j->end() && tags->is_array()) {
    for (const nlohmann::json& tag : *tags) {
      if (tag.is_string() && !tag.get<std::string>().empty())
        t.tags.push_back(tag.get<std::string>());
    }
  }
  t.code_diff = diff;
  t.provenance.policy = "llm-distill";
  t.provenance.latency_before_us = request.slow_result.latency_us;
  t.provenance.latency_after_us = request.fast_result.latency_us;
  t.embedding = lexical_embedding(t.bottleneck);
  t.id = derive_tuple_id(t);
  return t;
}

rewind_proposer llm_rewind_proposer(std::shared_ptr<llm_backend> llm,
                                    std::shared_ptr<const npu::op_package> op) {
  return [llm, op](const std::string& kernel, const std::vector<std::string>& tried,
                   uint32_t step) -> result<rewind_proposal> {
    llm_rewind_request request;
    request.campaign = "bank";
    request.op = op.get();
    request.kernel = kernel;
    request.removed_motifs = tried;
    request.sample_index = step;
    result<llm_rewind_result> r = llm_rewind_step(*llm, request);
    if (!r.ok()) {
      if (r.error().code() == status_code::failed_precondition)
        return not_found(r.error().message());
      rewind_proposal failed;
      failed.motif = "llm-failure";
      failed.kernel = kernel;
      failed.failure = r.error().to_string();
      return failed;
    }
    return rewind_proposal{r->motif, "", r->description, r->kernel, nullptr, ""};
  };
}

pair_distiller llm_pair_distiller(std::shared_ptr<llm_backend> llm) {
  return [llm](const npu::op_package& expert, const rewind_pair& pair) -> result<experience_tuple> {
    llm_distill_request request;
    request.campaign = "bank";
    request.op = &expert;
    request.slow_kernel = pair.slow_kernel;
    request.fast_kernel = pair.fast_kernel;
    request.slow_result = pair.slow_result;
    request.fast_result = pair.fast_result;
    request.sample_index = pair.step;
    result<experience_tuple> t = llm_distill(*llm, request);
    if (!t.ok()) return t.error();
    t->provenance.expert_op = expert.spec.name;
    t->provenance.step = pair.step;
    t->provenance.profile_deltas = profile_deltas(pair.slow_result, pair.fast_result);
    t->provenance.rule = pair.rule != nullptr ? pair.rule->name : std::string();
    if (t->category.empty()) t->category = pair.category;
    return t;
  };
}

}  // namespace aopt::agent
