#include "actors/refiner.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

refiner_actor spawn_refiner(caf::actor_system& sys, std::shared_ptr<agent::refiner_policy> policy) {
  return spawn_policy_actor<refiner_actor, refine_atom, refinement_job>(
      sys, [policy](const refinement_job& job) { return make_local(policy->refine(*job.value)); });
}

}  // namespace aopt::actors
