// Bounds concurrent device use: one slot per NPU or simulator worker. Callers block in
// acquire() on their own (detached) thread until a slot is free. Records the statistics the
// tests and /metrics need. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace aopt::agent {

struct slot_stats {
  uint32_t slots = 0;
  uint32_t in_flight = 0;
  uint32_t max_in_flight = 0;
  uint32_t waiting = 0;
  uint64_t completed = 0;
  double busy_seconds = 0;  // summed over slots
};

class device_slots {
 public:
  explicit device_slots(uint32_t slots);

  // RAII holder of one slot.
  class lease {
   public:
    explicit lease(device_slots& owner);
    ~lease();
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;

   private:
    device_slots& owner_;
    std::chrono::steady_clock::time_point start_;
  };

  slot_stats stats() const;

 private:
  void acquire();
  void release(double seconds);

  mutable std::mutex mutex_;
  std::condition_variable freed_;
  slot_stats stats_;  // guarded by mutex_
};

}  // namespace aopt::agent
