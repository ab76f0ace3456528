// Rewinder role: rewinds one expert kernel into a validated de-optimization trajectory and
// distills its kept pairs into experience tuples (agent::rewind_and_distill). Every step is
// evaluated by the Evaluator actor, so the bank builder shares the device pool (and its slot
// bound) with every other evaluation; the evaluator's eval_options apply, not the rewind's.
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

#include "agent/bank_rewind.hpp"
#include "npu/op_package.hpp"

namespace aopt::actors {

struct rewinder_context {
  caf::actor evaluator;  // an actors::spawn_evaluator
  // The rewind policy for one expert (the LLM proposer needs the package).
  std::function<agent::rewind_proposer(std::shared_ptr<const npu::op_package>)> proposer;
  agent::pair_distiller distill;
  agent::rewind_options options;  // options.eval is ignored: the evaluator has its own
};

caf::actor spawn_rewinder(caf::actor_system& sys, rewinder_context context);

}  // namespace aopt::actors
