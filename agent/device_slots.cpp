#include "agent/device_slots.hpp"

#include <algorithm>

namespace aopt::agent {

device_slots::device_slots(uint32_t slots) {
  stats_.slots = std::max<uint32_t>(1, slots);
}

device_slots::lease::lease(device_slots& owner, slot_use use)
    : owner_(owner), use_(use), start_(std::chrono::steady_clock::now()) {
  owner_.acquire();
  start_ = std::chrono::steady_clock::now();
}

device_slots::lease::~lease() {
  owner_.release(use_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

void device_slots::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  stats_.waiting++;
  freed_.wait(lock, [this] { return stats_.in_flight < stats_.slots; });
  stats_.waiting--;
  stats_.in_flight++;
  stats_.max_in_flight = std::max(stats_.max_in_flight, stats_.in_flight);
}

void device_slots::release(slot_use use, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.in_flight--;
    switch (use) {
      case slot_use::candidate:
        stats_.completed++;
        break;
      case slot_use::confirmation:
        stats_.confirmations++;
        break;
      case slot_use::validation:
        stats_.validations++;
        break;
    }
    stats_.busy_seconds += seconds;
  }
  freed_.notify_one();
}

slot_stats device_slots::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace aopt::agent
