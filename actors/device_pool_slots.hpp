// The device pool actor (actors/device_pool.hpp) as npu::device_slots: each evaluate() is a
// blocking request to the pool, which leases the evaluation to a slot of this process's device
// or of a remote worker (who gets the package's sources by content hash). The slots of every
// evaluation service of a daemon, so that campaigns and the bank builder share one bound.
//
// Thread-safety: evaluate() may be called from several threads at once, never from a scheduled
// actor's own thread (it blocks); the actor system must outlive this object.
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "actors/device_pool.hpp"
#include "npu/device_slots.hpp"

namespace aopt::actors {

// The pool's request for `job`: the package's sources by content hash (for a remote worker), and
// the call that runs it on `device` when a local slot takes it.
pool_work make_pool_work(std::shared_ptr<npu::device> device, const npu::slot_job& job);

// The status of a pool request that got no reply, its code kept.
status pool_failure(const caf::error& e);

class device_pool_slots final : public npu::device_slots {
 public:
  // `device`: this process's device, which the pool's local slots evaluate on (its profile is
  // the one the pool requires of workers). `pool`: an actors::spawn_device_pool.
  device_pool_slots(caf::actor_system& sys, device_pool_actor pool,
                    std::shared_ptr<npu::device> device);

  result<npu::eval_result> evaluate(const npu::slot_job& job) override;
  std::string profile_id() const override { return device_->profile_id(); }
  std::string checker_id() const override { return device_->checker_id(); }

 private:
  caf::actor_system& sys_;
  const device_pool_actor pool_;
  const std::shared_ptr<npu::device> device_;
};

}  // namespace aopt::actors
