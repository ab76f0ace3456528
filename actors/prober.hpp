// Prober role: runs a Stage I candidate's tiling function alone and judges what it decided
// (agent/episode/tiling_feasibility.hpp), before the candidate may cost a device evaluation (issue
// 16). The episode asks it for every tiling the engine flags (evaluation_request::probe), whoever
// proposed it; a campaign without a prober (stage1.probe_tilings = false, or none could be
// built for the device) has a null actor here and evaluates the tilings unprobed.
//
//   (probe_atom, probe_job) -> probe_outcome
#pragma once

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "agent/episode/tiling_feasibility.hpp"

namespace aopt::actors {

using prober_actor = caf::typed_actor<caf::replies_to<probe_atom, probe_job>::with<probe_outcome>>;

// REQUIRES: `screen` is not empty.
prober_actor spawn_prober(caf::actor_system& sys, agent::tiling_screen screen);

}  // namespace aopt::actors
