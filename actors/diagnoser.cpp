#include "actors/diagnoser.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

diagnoser_actor spawn_diagnoser(caf::actor_system& sys,
                                std::shared_ptr<agent::diagnoser_policy> policy) {
  return spawn_policy_actor<diagnoser_actor, diagnose_atom, diagnosis_job>(
      sys, [policy](const diagnosis_job& job) { return make_local(policy->diagnose(*job.value)); });
}

}  // namespace aopt::actors
