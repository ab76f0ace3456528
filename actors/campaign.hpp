// Campaign: runs the episodes of many operators concurrently, at most `jobs` at a time, and
// answers with every episode's summary once all have finished or stopped.
//
//   (run_atom) -> campaign_summary
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/episode.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

using campaign_actor = caf::typed_actor<caf::replies_to<run_atom>::with<campaign_summary>>;

struct campaign_episode {
  std::shared_ptr<const npu::op_package> op;
  agent::episode_state state;
};

struct campaign_context {
  std::string campaign;
  std::vector<campaign_episode> episodes;
  uint32_t jobs = 2;
  episode_pipeline pipeline;
  std::shared_ptr<agent::episode_journal> journal;
  std::shared_ptr<agent::event_sink> events;
  std::shared_ptr<const std::atomic<bool>> stop_requested;
};

campaign_actor spawn_campaign(caf::actor_system& sys, campaign_context context);

}  // namespace aopt::actors
