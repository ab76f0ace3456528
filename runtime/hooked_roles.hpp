// The hooked roles of a campaign (agent/episode/hooks.hpp), built from the role table
// (agent/roles/role_table.hpp) as [pipeline] annotators, gates, verifiers and observers name them.
//
// check_hooked_roles() refuses, naming the entry and the reason, a role whose hook is not the
// list's, `policy = "llm"` for a role without an LLM policy, a setting its schema does not have
// or of the wrong type, and an LLM role whose prompt templates are missing. `aopt run` and
// `aopt serve` call it before anything starts; spawn_hooked_roles() calls it again and spawns
// one actor per named role.
#pragma once

#include <memory>
#include <vector>

#include <caf/all.hpp>

#include "actors/hook_role.hpp"
#include "agent/episode/episode_state.hpp"
#include "agent/roles/role_descriptor.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"

namespace aopt::runtime {

status check_hooked_roles(const config::aopt_config& config);

// `pipeline` with the roles that resumed episodes ask and it does not name appended to their
// hook's list: an episode asks the roles its persisted configuration names (a state written
// before a feature became a role names it by migration, agent/episode/episode_state.hpp), so
// they must run even when today's [pipeline] leaves them out.
config::pipeline_config with_resumed_roles(config::pipeline_config pipeline,
                                           const std::vector<agent::episode_config>& episodes);

// `environment` is the campaign's (its policy and settings are filled per role here).
result<std::vector<actors::hooked_role>> spawn_hooked_roles(
    caf::actor_system& sys, const config::aopt_config& config,
    const agent::role_environment& environment);

}  // namespace aopt::runtime
