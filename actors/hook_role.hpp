// A hooked role (agent/episode/hooks.hpp) as an actor: one handle for the four hooks, answering
// the one its policy serves; a request for another hook is refused (the runtime never sends one:
// it checks each role's hook against its pipeline before spawning).
//
//   (annotate_atom, annotation_job) -> annotation_outcome
//   (gate_atom, gate_job) -> gate_outcome
//   (verify_atom, verification_job) -> verification_outcome
//   (observe_atom, observation_job) -> observation_outcome
#pragma once

#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "agent/episode/hooks.hpp"

namespace aopt::actors {

using hook_role_actor =
    caf::typed_actor<caf::replies_to<annotate_atom, annotation_job>::with<annotation_outcome>,
                     caf::replies_to<gate_atom, gate_job>::with<gate_outcome>,
                     caf::replies_to<verify_atom, verification_job>::with<verification_outcome>,
                     caf::replies_to<observe_atom, observation_job>::with<observation_outcome>>;

hook_role_actor spawn_hook_role(caf::actor_system& sys, agent::hook_policy policy);

// A spawned hooked role by the name the pipeline gives it.
struct hooked_role {
  std::string name;
  hook_role_actor actor;
};

}  // namespace aopt::actors
