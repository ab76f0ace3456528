// The depth screen: a gate (agent/episode/hooks.hpp) that judges a Stage II rewrite of queue
// depths before the device, from its parent's UB allocations (depth_rewrite_screen.hpp). At the
// parent's tiling such a rewrite allocates exactly the parent's buffers with the new counts, so
// two outcomes are known without an evaluation, and the veto is certain, not an opinion:
//
//   ub_overflow  the allocations exceed the UB: the device would stop the kernel at InitBuffer;
//   unchanged    every count equals the parent's: the device would run the parent's program.
//
// Anything the screen cannot predict exactly passes, and so does every candidate that does not
// keep its parent's tiling (a tiling, a best_of_n sample): the device decides. No settings, no
// LLM policy, no state.
#include <memory>
#include <string>

#include "agent/episode/depth_rewrite_screen.hpp"
#include "agent/roles/certain_veto.hpp"
#include "agent/roles/role_descriptor.hpp"

namespace aopt::agent {
namespace {

class depth_screen final : public gate_policy {
 public:
  std::string name() const override { return "depth-screen"; }

  result<gate_verdict> judge(const gate_request& request) override {
    if (request.role != "refiner" || request.tiling != request.parent_tiling) return gate_verdict{};
    return certain_veto_unless_feasible(
        screen_depth_rewrite(request.parent_kernel, request.parent_result.profile, request.kernel));
  }
};

}  // namespace

role_descriptor describe_depth_screen_role() {
  role_descriptor d;
  d.name = "depth_screen";
  d.hook = hook_kind::gate;
  d.summary =
      "refuses a Stage II rewrite of queue depths whose buffers overflow the UB at its parent's "
      "tiling, or whose counts are the parent's, before the device";
  d.make = [](const role_environment&) -> result<hook_policy> {
    return hook_policy{std::shared_ptr<gate_policy>(std::make_shared<depth_screen>())};
  };
  return d;
}

}  // namespace aopt::agent
