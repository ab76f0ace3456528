// Rewinder role: rewinds one expert kernel into a validated de-optimization trajectory and
// distills its kept pairs into experience tuples (agent::rewind_and_distill). Every step is
// evaluated through the evaluation service it is given, whose slots are the device pool's
// (actors/device_pool_slots.hpp) in the daemon, so the bank builder shares the pool (and its
// slot bound) with every other evaluation.
//
//   (rewind_atom, rewind_job) -> rewind_outcome
//
// A request runs on its own detached thread (it waits for many evaluations); several requests
// may run at once.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/all.hpp>

#include "actors/evaluator.hpp"
#include "actors/messages.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "agent/heuristics/bank_rewind.hpp"
#include "npu/op_package.hpp"

namespace aopt::actors {

using rewinder_actor =
    caf::typed_actor<caf::replies_to<rewind_atom, rewind_job>::with<rewind_outcome>>;

struct rewinder_context {
  std::shared_ptr<agent::evaluation_service> evaluations;  // not null
  // The rewind policy for one expert (the LLM proposer needs the package).
  std::function<agent::rewind_proposer(std::shared_ptr<const npu::op_package>)> proposer;
  agent::pair_distiller distill;
  agent::rewind_options options;
};

rewinder_actor spawn_rewinder(caf::actor_system& sys, rewinder_context context);

}  // namespace aopt::actors
