// Runs one episode actor to its end for actor tests: spawns it with `context`, waits for its
// summary, then stops the pipeline's role actors. FAILs the test on an actor error.
#pragma once

#include <doctest/doctest.h>

#include <optional>

#include <caf/all.hpp>

#include "actors/episode.hpp"
#include "actors/messages.hpp"
#include "actors/shut_down.hpp"

namespace aopt::testing {

inline std::optional<actors::episode_summary> episode_to_end(caf::actor_system& sys,
                                                             actors::episode_context context) {
  const actors::episode_pipeline pipeline = context.pipeline;
  actors::episode_actor episode = actors::spawn_episode(sys, std::move(context));
  caf::scoped_actor self{sys};
  std::optional<actors::episode_summary> summary;
  self->request(episode, caf::infinite, actors::run_atom_v)
      .receive([&](const actors::episode_summary& s) { summary = s; },
               [&](const caf::error& e) { FAIL("episode: " << caf::to_string(e)); });
  actors::shut_down(pipeline.mutator, pipeline.diagnoser, pipeline.retriever, pipeline.refiner,
                    pipeline.evaluator);
  for (const actors::hooked_role& role : pipeline.hooked) actors::shut_down(role.actor);
  return summary;
}

}  // namespace aopt::testing
