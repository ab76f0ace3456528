#include "actors/prober.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

prober_actor spawn_prober(caf::actor_system& sys, agent::tiling_screen screen) {
  return spawn_policy_actor<prober_actor, probe_atom, probe_job>(
      sys, [screen](const probe_job& job) {
        const tiling_probe_call& call = *job.value;
        return make_local(screen(*call.op, call.tiling, call.kernel));
      });
}

}  // namespace aopt::actors
