#include "actors/rewinder.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

// The npu::device that rewind_expert sees: each evaluate() is a blocking request to the
// evaluator actor, made from the rewinder's detached thread.
class evaluator_device final : public npu::device {
 public:
  evaluator_device(caf::actor_system& sys, caf::actor evaluator,
                   std::shared_ptr<const npu::op_package> op)
      : sys_(sys), evaluator_(std::move(evaluator)), op_(std::move(op)) {}

  // `op` is the package this device was made for (rewind_expert passes it back unchanged); the
  // shared copy travels in the job so that the evaluator needs no lifetime guarantee.
  npu::eval_result evaluate(const npu::op_package&, const std::string& tiling,
                            const std::string& kernel, const npu::eval_options&) override {
    evaluation_job job;
    job.campaign = "bank";
    job.op_dir = op_->dir.string();
    job.tiling = tiling;
    job.kernel = kernel;
    job.op = op_;
    npu::eval_result out;
    caf::scoped_actor self{sys_};
    self->request(evaluator_, caf::infinite, evaluate_atom_v, std::move(job))
        .receive([&](evaluation_done& done) { out = std::move(done.result); },
                 [&](const caf::error& e) {
                   out.status = npu::eval_status::infra_error;
                   out.message = "evaluator: " + caf::to_string(e);
                 });
    return out;
  }

  // Not used by rewind_expert; the evaluator keys its cache with the real device's id.
  std::string profile_id() const override { return "evaluator-actor"; }

 private:
  caf::actor_system& sys_;
  caf::actor evaluator_;
  std::shared_ptr<const npu::op_package> op_;
};

}  // namespace

caf::actor spawn_rewinder(caf::actor_system& sys, rewinder_context context) {
  auto ctx = std::make_shared<const rewinder_context>(std::move(context));
  return spawn_policy_actor<rewind_atom, rewind_job, rewind_outcome>(
      sys, [ctx, &sys](const rewind_job& job) {
        evaluator_device device(sys, ctx->evaluator, job.value);
        return make_local(agent::rewind_and_distill(device, *job.value, ctx->proposer(job.value),
                                                    ctx->distill, ctx->options));
      });
}

}  // namespace aopt::actors
