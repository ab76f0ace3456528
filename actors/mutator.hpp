// Mutator role: proposes a tiling program T' for the current best pair (Stage I).
//
//   (mutate_atom, mutation_job) -> mutation_outcome
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "agent/episode/roles.hpp"

namespace aopt::actors {

using mutator_actor =
    caf::typed_actor<caf::replies_to<mutate_atom, mutation_job>::with<mutation_outcome>>;

mutator_actor spawn_mutator(caf::actor_system& sys, std::shared_ptr<agent::mutator_policy> policy);

}  // namespace aopt::actors
