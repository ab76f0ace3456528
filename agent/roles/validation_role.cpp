// The validation of the final best (issue 17 item 6): a verifier (agent/episode/hooks.hpp) that
// checks the best for correctness on the operator's validation shapes (op.json
// "validation_shapes", npu/validation_shapes.hpp), which the tuning never saw, before it is
// reported. It acts at moment final only, one shape after another, and stops at the first one
// the best fails: the engine then reports the reference point instead, and its note says which
// shape and how ("failed validation shape 1 (x [2, 16]): runtime_error/...").
//
// The checks go through the campaign's evaluation service (role_environment::evaluation),
// correctness only, under validation cache keys of their own; their results go back as cache
// entries, so a resumed or repeated campaign does not check the same best on the same shape
// again. An operator without validation shapes passes with no note. No settings, no LLM policy,
// no state.
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "agent/roles/role_descriptor.hpp"
#include "npu/validation_shapes.hpp"

namespace aopt::agent {
namespace {

class validation final : public verifier_policy {
 public:
  explicit validation(std::shared_ptr<evaluation_service> evaluation)
      : evaluation_(std::move(evaluation)) {}
  std::string name() const override { return "validation"; }

  result<verification_reply> verify(const verification_request& request) override {
    verification_reply reply;
    reply.result = request.result;
    reply.role_state = request.role_state;
    const std::vector<npu::shape_set>& shapes = request.op->spec.validation_shapes;
    if (request.moment != verification_moment::final || shapes.empty()) return reply;
    for (size_t i = 0; i < shapes.size(); ++i) {
      evaluation_call check;
      check.op = std::make_shared<const npu::op_package>(npu::with_shapes(*request.op, shapes[i]));
      check.tiling = request.tiling;
      check.kernel = request.kernel;
      check.campaign = request.campaign;
      check.validation = true;
      result<evaluation> checked = evaluation_->evaluate(check);
      npu::eval_result outcome;
      if (checked.ok()) {
        outcome = checked->result;
        if (!outcome.from_cache) {
          if (auto entry = eval_cache_entry_for(checked->cache_key, outcome))
            reply.cache_entries.push_back(std::move(*entry));
        }
      } else {
        outcome.status = npu::eval_status::infra_error;
        outcome.message = checked.error().to_string();
      }
      if (outcome.ok()) continue;
      reply.result = outcome;
      reply.result.message =
          fmt::format("validation shape {} ({}): {}", i, npu::describe_shapes(shapes[i]),
                      npu::describe_outcome(outcome));
      return reply;
    }
    reply.note =
        fmt::format("the best passed {} validation shape(s) the tuning never saw", shapes.size());
    return reply;
  }

 private:
  std::shared_ptr<evaluation_service> evaluation_;
};

}  // namespace

role_descriptor describe_validation_role() {
  role_descriptor d;
  d.name = "validation";
  d.hook = hook_kind::verify;
  d.summary =
      "checks the final best for correctness on the operator's validation shapes, which the "
      "tuning never saw; a best that fails one is not reported, the reference point is";
  d.make = [](const role_environment& env) -> result<hook_policy> {
    if (!env.evaluation) {
      return failed_precondition("validation needs the campaign's evaluation service");
    }
    return hook_policy{
        std::shared_ptr<verifier_policy>(std::make_shared<validation>(env.evaluation))};
  };
  return d;
}

}  // namespace aopt::agent
