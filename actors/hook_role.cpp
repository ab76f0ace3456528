#include "actors/hook_role.hpp"

#include <memory>

#include "actors/detached_call.hpp"

namespace aopt::actors {
namespace {

template <class Policy>
std::shared_ptr<Policy> policy_of(const agent::hook_policy& policy) {
  const auto* held = std::get_if<std::shared_ptr<Policy>>(&policy);
  return held ? *held : nullptr;
}

template <class Reply>
result<Reply> wrong_hook(const agent::hook_policy& policy, agent::hook_kind asked) {
  return failed_precondition(agent::name_of(policy) + " serves the " +
                             agent::to_string(agent::kind_of(policy)) + " hook, not " +
                             agent::to_string(asked));
}

}  // namespace

hook_role_actor spawn_hook_role(caf::actor_system& sys, agent::hook_policy policy) {
  return sys.spawn([policy](hook_role_actor::pointer self) -> hook_role_actor::behavior_type {
    return {
        [=](annotate_atom, const annotation_job& job) -> caf::result<annotation_outcome> {
          auto annotator = policy_of<agent::annotator_policy>(policy);
          if (!annotator) {
            return make_local(
                wrong_hook<agent::annotation_reply>(policy, agent::hook_kind::annotate));
          }
          return answer_detached<annotation_outcome>(
              self, [annotator, job] { return make_local(annotator->annotate(*job.value)); });
        },
        [=](gate_atom, const gate_job& job) -> caf::result<gate_outcome> {
          auto gate = policy_of<agent::gate_policy>(policy);
          if (!gate)
            return make_local(wrong_hook<agent::gate_verdict>(policy, agent::hook_kind::gate));
          return answer_detached<gate_outcome>(
              self, [gate, job] { return make_local(gate->judge(*job.value)); });
        },
        [=](verify_atom, const verification_job& job) -> caf::result<verification_outcome> {
          auto verifier = policy_of<agent::verifier_policy>(policy);
          if (!verifier) {
            return make_local(
                wrong_hook<agent::verification_reply>(policy, agent::hook_kind::verify));
          }
          return answer_detached<verification_outcome>(
              self, [verifier, job] { return make_local(verifier->verify(*job.value)); });
        },
        [=](observe_atom, const observation_job& job) -> caf::result<observation_outcome> {
          auto observer = policy_of<agent::observer_policy>(policy);
          if (!observer) {
            return make_local(wrong_hook<nlohmann::json>(policy, agent::hook_kind::observe));
          }
          return answer_detached<observation_outcome>(
              self, [observer, job] { return make_local(observer->observe(*job.value)); });
        },
    };
  });
}

}  // namespace aopt::actors
