// Evaluator role: evaluates candidates through the device pool (actors/device_pool.hpp), which
// leases each evaluation to a local slot or a remote worker. Answers from the evaluation cache
// when it can; otherwise waits for the pool's answer on a detached thread. A cold job (a
// confirmation) always goes to the device, built afresh (eval_options::cold).
//
//   (evaluate_atom, evaluation_job) -> evaluation_done
//   (stats_atom)                    -> pool_stats  the device pool's counts, and the jobs this
//                                                  evaluator answered from the cache
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "agent/evaluation/eval_cache.hpp"
#include "npu/device.hpp"

namespace aopt::actors {

struct evaluator_context {
  std::shared_ptr<npu::device> device;       // this process's device: the pool's local slots use it
  caf::actor pool;                           // the device pool
  std::shared_ptr<agent::eval_cache> cache;  // may be null
  npu::eval_options options;
};

caf::actor spawn_evaluator(caf::actor_system& sys, evaluator_context context);

}  // namespace aopt::actors
