// Runs (or resumes) a campaign in this process: discovers the operators, restores every
// episode's persisted state, starts the actor system with the configured roles and device pool,
// and waits until every episode has finished or a stop was requested.
//
// A campaign's id is derived from its inputs and configuration unless named, so running the
// same command again resumes the same campaign.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "agent/campaign_events.hpp"
#include "agent/episode_state.hpp"
#include "agent/policy_set.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "storage/store.hpp"

namespace aopt::runtime {

// Operator package folders under `inputs`: a folder holding op.json is one operator; any other
// folder is searched recursively, skipping expert kernels (kind "expert"), which are material
// for the experience bank, not optimization targets. Sorted, without duplicates.
result<std::vector<std::filesystem::path>> discover_operators(
    const std::vector<std::filesystem::path>& inputs);

// The id a campaign over `operators` with `config` gets when none is given.
std::string derive_campaign_id(const std::vector<std::filesystem::path>& operators,
                               const config::aopt_config& config);

struct campaign_outcome {
  std::string campaign;
  std::vector<agent::episode_state> episodes;
  std::vector<std::string> errors;  // operators that could not be loaded or persisted
  bool interrupted = false;         // a stop was requested before every episode finished
  double wall_seconds = 0;
  actors::pool_stats pool;
};

struct campaign_request {
  std::string campaign;  // "" = derive_campaign_id
  std::vector<std::filesystem::path> operators;
  config::aopt_config config;
};

// Policies for the configured roles (heuristic or LLM per role).
result<agent::policy_set> make_policies(const config::aopt_config& config, storage::store& db);

// Runs the campaign to completion or until *stop becomes true. `events` may be null.
result<campaign_outcome> run_campaign(const campaign_request& request, storage::store& db,
                                      std::shared_ptr<agent::event_sink> events,
                                      std::shared_ptr<const std::atomic<bool>> stop);

// Loads the campaign record `id` (its operators and configuration snapshot) for a resume.
result<campaign_request> load_campaign_request(storage::store& db, const std::string& id);

}  // namespace aopt::runtime
