// The one error of the actor boundary. Below the actors a failure is an aopt::status; an actor
// answers a request it cannot serve with the caf::error of that status (category "aopt", code
// the status_code, context the message), and the requester turns any error it gets back into a
// status (to_status): the same status, or, for CAF's own errors (a receiver gone, an exit), the
// closest code. So every requester handles one type, and an error crossing to a remote worker
// keeps its code.
//
// Register the category (add_aopt_error_category) with every actor_system_config, next to the
// message types, so that actor_system::render names the code.
#pragma once

#include <caf/all.hpp>

#include "base/status.hpp"

CAF_ERROR_CODE_ENUM(aopt::status_code, "aopt")

namespace aopt::actors {

// REQUIRES: !s.ok().
caf::error to_actor_error(const status& s);

// The status `e` carries ("aopt" errors), or the closest one for CAF's own errors with CAF's
// description as its message. An empty error is an ok status.
status to_status(const caf::error& e);

void add_aopt_error_category(caf::actor_system_config& cfg);

}  // namespace aopt::actors
