// The confirmation of an improvement (issue 17): a verifier (agent/episode/hooks.hpp) that
// evaluates a result which would become the operator's best once more, on the device and from a
// cold build, before the engine takes it; the engine then sees the two runs combined
// (agent/episode/improvement_confirmation.hpp: the slower one, or the cold run's failure).
//
// A result the evaluation cache answered that was confirmed already (a resumed or repeated
// campaign) is not run again, and neither is anything that would not become the best, nor the
// final best (moment final: it was confirmed when it was accepted). The cold run goes through
// the campaign's evaluation service (role_environment::evaluation), on its device slots, outside
// the budget. device.confirm_improvements = false leaves the role out of the verifiers. No
// settings, no LLM policy, no state.
#include <memory>
#include <string>
#include <utility>

#include "agent/episode/improvement_confirmation.hpp"
#include "agent/roles/role_descriptor.hpp"

namespace aopt::agent {
namespace {

class improvement_confirmation final : public verifier_policy {
 public:
  explicit improvement_confirmation(std::shared_ptr<evaluation_service> evaluation)
      : evaluation_(std::move(evaluation)) {}
  std::string name() const override { return "improvement-confirmation"; }

  result<verification_reply> verify(const verification_request& request) override {
    verification_reply reply;
    reply.result = request.result;
    reply.role_state = request.role_state;
    const bool confirmed_before = request.result.from_cache && request.result.confirmed;
    if (request.moment != verification_moment::evaluation || !request.would_accept ||
        confirmed_before) {
      return reply;
    }
    evaluation_call cold;
    // Not owned: the operator outlives the call (verification_request::op).
    cold.op = std::shared_ptr<const npu::op_package>(std::shared_ptr<void>(), request.op);
    cold.tiling = request.tiling;
    cold.kernel = request.kernel;
    cold.campaign = request.campaign;
    cold.cold = true;
    result<evaluation> second = evaluation_->evaluate(cold);
    if (!second.ok()) {
      npu::eval_result failed;
      failed.status = npu::eval_status::infra_error;
      failed.message = "the cold re-evaluation: " + second.error().to_string();
      reply.result = confirmed_result(request.result, failed);
      return reply;
    }
    reply.result = confirmed_result(request.result, second->result);
    return reply;
  }

 private:
  std::shared_ptr<evaluation_service> evaluation_;
};

}  // namespace

role_descriptor describe_improvement_confirmation_role() {
  role_descriptor d;
  d.name = "improvement_confirmation";
  d.hook = hook_kind::verify;
  d.summary =
      "evaluates a result that would become the best once more, cold, and lets the engine take "
      "the slower of the two runs, or the cold run's failure";
  d.make = [](const role_environment& env) -> result<hook_policy> {
    if (!env.evaluation) {
      return failed_precondition(
          "improvement_confirmation needs the campaign's evaluation service");
    }
    return hook_policy{std::shared_ptr<verifier_policy>(
        std::make_shared<improvement_confirmation>(env.evaluation))};
  };
  return d;
}

}  // namespace aopt::agent
