// What every actor system of aopt is configured with, the daemon's and a worker's alike: the
// aopt message types, the "aopt" error category (actor_error.hpp) and the scheduler.
//
// The scheduler shares one job queue among its threads ("sharing"): an idle thread blocks on
// it. CAF's default work-stealing scheduler polls instead, waking every idle thread every 50 µs
// to look for work; aopt's actors are idle most of the time (they wait for compilers and
// simulator runs in child processes), so those wake-ups took a tenth of a two-core machine.
#pragma once

#include <caf/all.hpp>

namespace aopt::actors {

void configure_actor_system(caf::actor_system_config& cfg);

}  // namespace aopt::actors
