// The device pool (issue 19): every evaluation of the process goes through it. It leases each
// one to a slot, local or on a remote evaluation worker (`aopt worker`), with a lease id; the
// bookkeeping is agent::lease_table, this actor only adapts it to messages.
//
//   (evaluate_atom, pool_job)           -> evaluation_reply  from this process's evaluators
//   (challenge_atom)                    -> nonce             a worker about to join
//   (join_atom, worker_hello, actor)    -> worker_welcome    a worker offering its slots; refused
//                                                            (an error) for a nonce not open, a
//                                                            wrong answer (secret), another
//                                                            hardware profile or another
//                                                            checker
//   (heartbeat_atom, worker name)                            from a joined worker
//   (package_atom, hash)                -> package_sources   a joined worker lacking a package
//   (stats_atom)                        -> pool_stats
//
// Only challenge, join, heartbeat and package messages can come from other nodes. A worker
// joins by challenge-response: the pool sends a random nonce, the worker answers
// HMAC-SHA256(secret, nonce || its host), the pool compares in constant time; the secret never
// crosses the wire and a nonce serves one join. A worker is trusted only after its join: work
// goes only to joined workers, results are accepted only as the replies to the pool's own
// requests, and heartbeats and package requests are answered only when they come
// from the actor that joined under that name. A worker whose connection goes down, that misses
// heartbeats for heartbeat_timeout_s, or that answers a lease with an error is dropped and its
// leases are queued again; a late result of a lease already completed is not counted again.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <caf/all.hpp>

#include "actors/messages.hpp"
namespace aopt::actors {

// The joining worker travels untyped: it is an actors::evaluation_worker_actor, whose header
// names this one (its coordinator); the pool checks it when the join is accepted.
using device_pool_actor =
    caf::typed_actor<caf::replies_to<evaluate_atom, pool_job>::with<evaluation_reply>,
                     caf::replies_to<challenge_atom>::with<std::string>,
                     caf::replies_to<join_atom, worker_hello, caf::actor>::with<worker_welcome>,
                     caf::reacts_to<heartbeat_atom, std::string>,
                     caf::replies_to<package_atom, std::string>::with<npu::package_sources>,
                     caf::replies_to<stats_atom>::with<pool_stats>, caf::reacts_to<tick_atom>>;

struct device_pool_config {
  uint32_t local_slots = 1;  // 0: a pure coordinator, evaluating on workers only
  std::string secret;        // "" = workers need none (the listener is then loopback only)
  std::string profile_id;    // workers must evaluate on this hardware profile
  std::string checker_id;    // ... judged by this checker (npu::device::checker_id)
  double heartbeat_s = 1;
  double heartbeat_timeout_s = 10;
  // Told of workers joining, refused and dropped, one line each (may be null). Called from the
  // pool's thread.
  std::function<void(const std::string&)> on_worker_event;
};

device_pool_actor spawn_device_pool(caf::actor_system& sys, device_pool_config config);

}  // namespace aopt::actors
