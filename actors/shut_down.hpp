// Ends actors of any handle type (typed or not) with user_shutdown; null handles are skipped.
// Owners of the role actors of a run call it when the run is over.
#pragma once

#include <caf/all.hpp>

namespace aopt::actors {

template <class... Handles>
void shut_down(const Handles&... actors) {
  const auto one = [](const auto& a) {
    if (a) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  };
  (one(actors), ...);
}

}  // namespace aopt::actors
