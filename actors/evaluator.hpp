// Evaluator role: evaluates candidates on the device through the device pool. Answers from the
// evaluation cache when it can; otherwise waits for a device slot on a detached thread. A cold
// job (a confirmation) always goes to the device, built afresh (eval_options::cold).
//
//   (evaluate_atom, evaluation_job) -> evaluation_done
//   (stats_atom)                    -> pool_stats  the device pool's counts, and the jobs this
//                                                  evaluator answered from the cache
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "agent/device_slots.hpp"
#include "agent/eval_cache.hpp"
#include "npu/device.hpp"

namespace aopt::actors {

struct evaluator_context {
  std::shared_ptr<npu::device> device;
  std::shared_ptr<agent::device_slots> slots;
  std::shared_ptr<agent::eval_cache> cache;  // may be null
  npu::eval_options options;
};

caf::actor spawn_evaluator(caf::actor_system& sys, evaluator_context context);

}  // namespace aopt::actors
