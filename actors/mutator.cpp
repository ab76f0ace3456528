#include "actors/mutator.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

mutator_actor spawn_mutator(caf::actor_system& sys, std::shared_ptr<agent::mutator_policy> policy) {
  return spawn_policy_actor<mutator_actor, mutate_atom, mutation_job>(
      sys, [policy](const mutation_job& job) { return make_local(policy->mutate(*job.value)); });
}

}  // namespace aopt::actors
