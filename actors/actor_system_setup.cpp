#include "actors/actor_system_setup.hpp"

#include "actors/actor_error.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

void configure_actor_system(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::aopt>();
  add_aopt_error_category(cfg);
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

}  // namespace aopt::actors
