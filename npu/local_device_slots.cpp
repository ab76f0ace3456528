#include "npu/local_device_slots.hpp"

#include <algorithm>
#include <utility>

namespace aopt::npu {

local_device_slots::local_device_slots(std::shared_ptr<device> device, uint32_t slots)
    : device_(std::move(device)), slots_(std::max<uint32_t>(1, slots)) {}

result<eval_result> local_device_slots::evaluate(const slot_job& job) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_.wait(lock, [&] { return busy_ < slots_; });
    max_busy_ = std::max(max_busy_, ++busy_);
  }
  // Released however the device call ends (devices do not throw, but a slot must never leak).
  struct release {
    local_device_slots& slots;
    ~release() {
      {
        std::lock_guard<std::mutex> lock(slots.mutex_);
        --slots.busy_;
      }
      slots.freed_.notify_one();
    }
  } held{*this};
  return device_->evaluate(*job.op, job.tiling, job.kernel, job.options);
}

uint32_t local_device_slots::max_in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_busy_;
}

}  // namespace aopt::npu
