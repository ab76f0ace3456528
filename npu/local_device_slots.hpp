// This process's device behind a fixed number of slots: at most `slots` evaluations run on it
// at once, the others wait for a slot in evaluate() (a counting semaphore). The slots of code
// that evaluates without an actor system; a daemon's evaluations go through the device pool
// actor instead (actors/device_pool_slots.hpp), which also leases remote workers' slots.
//
// Thread-safety: evaluate() may be called from any number of threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "npu/device_slots.hpp"

namespace aopt::npu {

class local_device_slots final : public device_slots {
 public:
  // REQUIRES: `device` is not null. `slots` below 1 is taken as 1 (no slot would never run).
  local_device_slots(std::shared_ptr<device> device, uint32_t slots);

  result<eval_result> evaluate(const slot_job& job) override;
  std::string profile_id() const override { return device_->profile_id(); }
  std::string checker_id() const override { return device_->checker_id(); }

  // The most evaluations that ran at once so far (never above the slot count).
  uint32_t max_in_flight() const;

 private:
  const std::shared_ptr<device> device_;
  const uint32_t slots_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  // State below is protected by mutex_.
  uint32_t busy_ = 0;
  uint32_t max_busy_ = 0;
};

}  // namespace aopt::npu
