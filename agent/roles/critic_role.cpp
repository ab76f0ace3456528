// The Critic: a gate (agent/episode/hooks.hpp) that vetoes a Stage II kernel rewrite before the
// device when evaluating it cannot pay:
//
//   * the rewrite changes only comments or layout: the compiler sees the same tokens, so the
//     device would run the same program (both policies; no LLM call is spent on it);
//   * heuristic: the diagnosis says a rewrite cannot help: the parent already runs at
//     roles.critic.roofline_fraction of its roofline bound or above, or launch overhead is the
//     only bottleneck the diagnoser found (a kernel rewrite does not shorten a launch);
//   * llm: the model, shown the diagnosis, the annotations and both kernels (critique.md),
//     answers whether the rewrite addresses the bottleneck.
//
// Tilings pass: their feasibility is the tiling probe's. A veto's reason reaches the refiner.
// The role state counts the vetoes of the episode. Its vetoes are opinions: past the step's
// limit (gate_request::heeds_opinions false) it accepts without asking the model.
#include <algorithm>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "agent/kernel_text/token_sequence.hpp"
#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "agent/roles/role_descriptor.hpp"
#include "llm/answer_parser.hpp"

namespace aopt::agent {
namespace {

gate_verdict accept(const gate_request& request) {
  gate_verdict verdict;
  verdict.role_state = request.role_state;
  return verdict;
}

gate_verdict veto(const gate_request& request, std::string reason) {
  nlohmann::json state =
      request.role_state.is_object() ? request.role_state : nlohmann::json::object();
  state["vetoes"] = state.value("vetoes", 0) + 1;
  gate_verdict verdict;
  verdict.veto = true;
  verdict.reason = std::move(reason);
  verdict.role_state = std::move(state);
  return verdict;
}

bool has_tag(const diagnosis& d, const std::string& tag) {
  return std::find(d.tags.begin(), d.tags.end(), tag) != d.tags.end();
}

// The rule both policies share; nullopt when the rewrite changes the program.
std::optional<gate_verdict> same_program(const gate_request& request) {
  if (!same_tokens(request.parent_kernel, request.kernel)) return std::nullopt;
  return veto(request,
              "the rewrite changes only comments or layout: the compiler sees the same tokens, so "
              "the device would run the same program");
}

class heuristic_critic final : public gate_policy {
 public:
  explicit heuristic_critic(double roofline_fraction) : roofline_fraction_(roofline_fraction) {}
  std::string name() const override { return "heuristic-critic"; }

  result<gate_verdict> judge(const gate_request& request) override {
    if (request.role != "refiner" || !request.heeds_opinions) return accept(request);
    if (std::optional<gate_verdict> same = same_program(request)) return *same;
    const npu::roofline& roof = request.parent_result.roof;
    if (roof.bound_us > 0 && roof.achieved_fraction >= roofline_fraction_) {
      return veto(request,
                  fmt::format("the parent runs at {:.0f} % of its roofline bound ({:.3g} "
                              "us): a kernel rewrite can remove at most {:.1f} % of its "
                              "latency, and the "
                              "critic lets none through above {:.0f} % "
                              "(roles.critic.roofline_fraction)",
                              100 * roof.achieved_fraction, roof.bound_us,
                              100 * (1 - roof.achieved_fraction), 100 * roofline_fraction_));
    }
    if (request.diag.tags == std::vector<std::string>{"launch_bound"} ||
        (has_tag(request.diag, "launch_bound") && has_tag(request.diag, "near_roofline") &&
         request.diag.tags.size() == 2)) {
      return veto(request,
                  "the diagnosis names launch overhead as the only bottleneck: a kernel rewrite "
                  "does not shorten the launch (the tiling's block dim does)");
    }
    return accept(request);
  }

 private:
  double roofline_fraction_;
};

class llm_critic final : public gate_policy {
 public:
  explicit llm_critic(std::shared_ptr<llm_backend> llm) : llm_(std::move(llm)) {}
  std::string name() const override { return "llm-critic"; }

  result<gate_verdict> judge(const gate_request& request) override {
    if (request.role != "refiner" || !request.heeds_opinions) return accept(request);
    if (std::optional<gate_verdict> same = same_program(request)) return *same;
    if (request.op == nullptr) return invalid_argument("llm-critic: request without an operator");
    const llm::prompt_variables values = {
        {"op_spec", describe_op(*request.op)},
        {"profile", describe_result(request.parent_result)},
        {"diagnosis", describe_diagnosis(request.diag)},
        {"annotations", describe_annotations(request.annotations)},
        {"origin", request.origin},
        {"parent_kernel", request.parent_kernel},
        {"kernel", request.kernel},
    };
    const uint64_t sample =
        request.role_state.is_object() ? request.role_state.value("asked", 0) : 0;
    result<llm::chat_response> answer =
        llm_->ask({request.campaign, request.op->spec.name, "critic"}, "critique", values, sample);
    if (!answer.ok()) return answer.error();
    llm::answer_result<nlohmann::json> j = llm::parse_json_answer(answer->content);
    if (!j.ok()) return j.error();
    const auto vetoed = j->find("veto");
    const auto reason = j->find("reason");
    if (vetoed == j->end() || !vetoed->is_boolean()) {
      return invalid_argument("malformed_json: the critique has no boolean \"veto\"");
    }
    const std::string why =
        reason != j->end() && reason->is_string() ? reason->get<std::string>() : std::string();
    gate_verdict verdict =
        *vetoed ? veto(request, why.empty() ? "the LLM critic vetoed it" : why) : accept(request);
    if (!verdict.role_state.is_object()) verdict.role_state = nlohmann::json::object();
    verdict.role_state["asked"] = sample + 1;
    return verdict;
  }

 private:
  std::shared_ptr<llm_backend> llm_;
};

}  // namespace

role_descriptor describe_critic_role() {
  role_descriptor d;
  d.name = "critic";
  d.hook = hook_kind::gate;
  d.summary =
      "vetoes a Stage II kernel rewrite that cannot change the program the device runs, or that "
      "the diagnosis says cannot help";
  d.settings = {{"roofline_fraction", setting_type::real, 0.95,
                 "a parent at this fraction of its roofline bound or above gets no kernel "
                 "rewrite (heuristic policy), in (0, 1]"}};
  d.has_llm_policy = true;
  d.prompts = {"critique"};
  d.make = [](const role_environment& env) -> result<hook_policy> {
    if (env.policy == config::policy_kind::llm) {
      if (!env.llm) return invalid_argument("policy = \"llm\" needs the LLM backend");
      return hook_policy{std::shared_ptr<gate_policy>(std::make_shared<llm_critic>(env.llm))};
    }
    const double fraction = env.settings.at("roofline_fraction").get<double>();
    if (!(fraction > 0 && fraction <= 1)) {
      return invalid_argument(fmt::format(
          "config: roles.critic.roofline_fraction: must be in (0, 1], got {}", fraction));
    }
    return hook_policy{std::shared_ptr<gate_policy>(std::make_shared<heuristic_critic>(fraction))};
  };
  return d;
}

}  // namespace aopt::agent
