// The actor of an `aopt worker` process (issue 19): evaluates the leases a coordinator's device
// pool sends it on this host's device, each on its own detached thread (the pool never sends
// more than the slots it offered). Operator packages arrive as content hashes; a package it lacks
// is asked from the pool, checked against its hash and kept in the bounded package cache (which
// outlives the actor, so that a worker that rejoins keeps what it has).
//
//   (evaluate_atom, evaluation_request) -> evaluation_reply
//   (worker_welcome)                    the pool accepted it: start the heartbeats
//   (tick_atom)                         its own timer: send a heartbeat
//
// It ends when the coordinator goes down (its connection is lost).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/all.hpp>

#include "actors/device_pool.hpp"
#include "actors/messages.hpp"
#include "npu/device.hpp"
#include "npu/package_cache.hpp"

namespace aopt::actors {

using evaluation_worker_actor =
    caf::typed_actor<caf::replies_to<evaluate_atom, evaluation_request>::with<evaluation_reply>,
                     caf::reacts_to<worker_welcome>, caf::reacts_to<tick_atom>>;

struct evaluation_worker_context {
  std::shared_ptr<npu::device> device;
  device_pool_actor coordinator;                 // the remote device pool
  std::shared_ptr<npu::package_cache> packages;  // not null
  // Told when an evaluation starts ("lease 7: adds_custom"); may be null. Called from the
  // actor's thread.
  std::function<void(const std::string&)> on_lease;
};

evaluation_worker_actor spawn_evaluation_worker(caf::actor_system& sys,
                                                evaluation_worker_context context);

}  // namespace aopt::actors
