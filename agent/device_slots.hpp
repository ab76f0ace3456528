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
  uint64_t completed = 0;      // candidate evaluations
  uint64_t confirmations = 0;  // cold re-evaluations of accepted improvements (issue 17)
  uint64_t validations = 0;    // final bests checked on validation shapes
  double busy_seconds = 0;  // summed over slots
};

// What a slot is leased for: the counts keep confirmations and validations apart, so that
// candidate evaluations plus cache hits still equal the candidates a campaign tried.
enum class slot_use { candidate, confirmation, validation };

class device_slots {
 public:
  explicit device_slots(uint32_t slots);

  // RAII holder of one slot.
  class lease {
   public:
    explicit lease(device_slots& owner, slot_use use = slot_use::candidate);
    ~lease();
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;

   private:
    device_slots& owner_;
    slot_use use_;
    std::chrono::steady_clock::time_point start_;
  };

  slot_stats stats() const;

 private:
  void acquire();
  void release(slot_use use, double seconds);

  mutable std::mutex mutex_;
  std::condition_variable freed_;
  slot_stats stats_;  // guarded by mutex_
};

}  // namespace aopt::agent
