// Diagnoser role: turns the best kernel and its profile into a bottleneck query (Stage II).
//
//   (diagnose_atom, diagnosis_job) -> diagnosis_outcome
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "agent/episode/roles.hpp"

namespace aopt::actors {

using diagnoser_actor =
    caf::typed_actor<caf::replies_to<diagnose_atom, diagnosis_job>::with<diagnosis_outcome>>;

diagnoser_actor spawn_diagnoser(caf::actor_system& sys,
                                std::shared_ptr<agent::diagnoser_policy> policy);

}  // namespace aopt::actors
