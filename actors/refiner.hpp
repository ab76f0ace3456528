// Refiner role: candidate kernels K' for the best kernel, guided by retrieved tuples (Stage II).
//
//   (refine_atom, refinement_job) -> refinement_outcome
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "agent/episode/roles.hpp"

namespace aopt::actors {

using refiner_actor =
    caf::typed_actor<caf::replies_to<refine_atom, refinement_job>::with<refinement_outcome>>;

refiner_actor spawn_refiner(caf::actor_system& sys, std::shared_ptr<agent::refiner_policy> policy);

}  // namespace aopt::actors
