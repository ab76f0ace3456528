// Evaluator role: a thin adapter of agent::evaluation_service (cache lookup, slot lease, device
// call) to messages. Its slots are the device pool's (actors/device_pool_slots.hpp), which
// leases each evaluation to a local slot or a remote worker. A request is answered from the
// cache, or by the pool's reply, asked without blocking; a failure keeps its status code. A cold
// job (a confirmation) always goes to the device, built afresh (eval_options::cold); so does a
// validation job.
//
//   (evaluate_atom, evaluation_job) -> evaluation_done  an error when the pool gave no result
//   (stats_atom)                    -> pool_stats  the device pool's counts, and the jobs this
//                                                  evaluator answered from the cache
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "actors/device_pool.hpp"
#include "actors/messages.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "npu/device.hpp"

namespace aopt::actors {

using evaluator_actor =
    caf::typed_actor<caf::replies_to<evaluate_atom, evaluation_job>::with<evaluation_done>,
                     caf::replies_to<stats_atom>::with<pool_stats>>;

struct evaluator_context {
  std::shared_ptr<npu::device> device;  // this process's device: the pool's local slots use it
  device_pool_actor pool;
  std::shared_ptr<agent::eval_cache> cache;  // may be null
  npu::eval_options options;
};

evaluator_actor spawn_evaluator(caf::actor_system& sys, evaluator_context context);

// The evaluation service over the device pool's slots that spawn_evaluator adapts: for callers
// that evaluate outside an episode's budget (a hooked role's environment).
std::shared_ptr<agent::evaluation_service> make_evaluation_service(caf::actor_system& sys,
                                                                   evaluator_context context);

}  // namespace aopt::actors
