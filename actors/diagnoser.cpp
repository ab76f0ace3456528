#include "actors/diagnoser.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

caf::actor spawn_diagnoser(caf::actor_system& sys,
                           std::shared_ptr<agent::diagnoser_policy> policy) {
  return spawn_policy_actor<diagnose_atom, diagnosis_job, diagnosis_outcome>(
      sys, [policy](const diagnosis_job& job) { return make_local(policy->diagnose(*job.value)); });
}

}  // namespace aopt::actors
