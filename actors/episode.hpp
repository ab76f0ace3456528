// Episode: runs Algorithm 1 for one operator. Drives an agent::episode_engine, sending each
// need to the role actor that serves it and persisting every transition through the journal
// before taking the next step. Spawned detached: journal writes are synchronous (WAL).
//
//   (run_atom) -> episode_summary   (answered when the episode is finished or stopped)
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <caf/all.hpp>

#include "actors/diagnoser.hpp"
#include "actors/evaluator.hpp"
#include "actors/hook_role.hpp"
#include "actors/messages.hpp"
#include "actors/mutator.hpp"
#include "actors/refiner.hpp"
#include "actors/retriever.hpp"
#include "agent/episode/campaign_events.hpp"
#include "agent/episode/episode_journal.hpp"
#include "agent/episode/episode_state.hpp"
#include "npu/op_package.hpp"

namespace aopt::actors {

using episode_actor = caf::typed_actor<caf::replies_to<run_atom>::with<episode_summary>>;

// Role actors by the need they serve (the pipeline, configured by name in the role registry).
// The diagnoser and the retriever may be null: the episode then goes on with an empty diagnosis
// or no tuples.
struct episode_pipeline {
  mutator_actor mutator;
  diagnoser_actor diagnoser;
  retriever_actor retriever;
  refiner_actor refiner;
  evaluator_actor evaluator;
  std::string mutator_policy;  // names recorded with each candidate
  std::string refiner_policy;
  // The hooked roles (agent/episode/hooks.hpp), by name; the episode's configuration says which
  // it asks, in which order.
  std::vector<hooked_role> hooked;
};

struct episode_context {
  std::shared_ptr<const npu::op_package> op;
  agent::episode_state state;  // fresh or resumed
  episode_pipeline pipeline;
  std::shared_ptr<agent::episode_journal> journal;
  std::shared_ptr<agent::event_sink> events;  // may be null
  // Set to stop after the step in flight (its result is persisted first).
  std::shared_ptr<const std::atomic<bool>> stop_requested;
};

episode_actor spawn_episode(caf::actor_system& sys, episode_context context);

}  // namespace aopt::actors
