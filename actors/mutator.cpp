#include "actors/mutator.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

caf::actor spawn_mutator(caf::actor_system& sys, std::shared_ptr<agent::mutator_policy> policy) {
  return spawn_policy_actor<mutate_atom, mutation_job, mutation_outcome>(
      sys, [policy](const mutation_job& job) { return make_local(policy->mutate(*job.value)); });
}

}  // namespace aopt::actors
