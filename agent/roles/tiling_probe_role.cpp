// The tiling probe: a gate (agent/episode/hooks.hpp) that runs a Stage I candidate's tiling
// function alone and judges what it decided (agent/episode/tiling_feasibility.hpp) before the
// candidate may cost a kernel build and a device evaluation (issue 16). It judges every
// candidate that brings a tiling of its own, whoever proposed it (the mutator, a best_of_n
// sample); a kernel rewrite keeps its parent's tiling and passes.
//
// Its vetoes are certain: an infeasible tiling is one the device would refuse ("ub_overflow",
// "uncovered", ... counted as "<kind> (tiling_probe)"), and its kind is the mutator's feedback.
// It probes with the campaign's screen (role_environment::tiling_probe), which
// stage1.probe_tilings switches off and which a device that cannot probe does not have: then it
// accepts every candidate, and the tilings go to the device unprobed. No settings, no LLM
// policy, no state.
#include <memory>
#include <string>
#include <utility>

#include "agent/roles/certain_veto.hpp"
#include "agent/roles/role_descriptor.hpp"

namespace aopt::agent {
namespace {

class tiling_probe final : public gate_policy {
 public:
  explicit tiling_probe(tiling_screen screen) : screen_(std::move(screen)) {}
  std::string name() const override { return "tiling-probe"; }

  result<gate_verdict> judge(const gate_request& request) override {
    if (!screen_ || request.role == "refiner") return gate_verdict{};
    return certain_veto_unless_feasible(screen_(*request.op, request.tiling, request.kernel));
  }

 private:
  tiling_screen screen_;  // empty: nothing is probed
};

}  // namespace

role_descriptor describe_tiling_probe_role() {
  role_descriptor d;
  d.name = "tiling_probe";
  d.hook = hook_kind::gate;
  d.summary =
      "runs a Stage I candidate's tiling function alone and refuses a tiling the device would "
      "refuse (UB overflow, uncovered elements, a failing tiling function), before the device";
  d.make = [](const role_environment& env) -> result<hook_policy> {
    return hook_policy{
        std::shared_ptr<gate_policy>(std::make_shared<tiling_probe>(env.tiling_probe))};
  };
  return d;
}

}  // namespace aopt::agent
