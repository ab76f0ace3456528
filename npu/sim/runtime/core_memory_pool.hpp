// The local memories of simulated cores (UB, then the cube memories), handed from one core to
// the next of a launch. A core takes a lease, which starts poisoned, and gives the memory back
// when it ends; the next core re-poisons it in place. A launch runs its blocks one at a time
// (block_runner.hpp), so one or two buffers serve all of its cores where a fresh allocation per
// core (a megabyte each) paid its first-touch page faults again: under a hypervisor that
// shadows page tables those cost more than the kernel's own work on small operators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace aopt::sim {

class core_memory_pool {
 public:
  // Buffers of `bytes`, each filled with `poison` when leased.
  core_memory_pool(size_t bytes, uint8_t poison);
  core_memory_pool(const core_memory_pool&) = delete;
  core_memory_pool& operator=(const core_memory_pool&) = delete;

  struct free_deleter {
    void operator()(uint8_t* p) const;
  };
  using buffer = std::unique_ptr<uint8_t[], free_deleter>;

  // One buffer for one core's lifetime; returned to its pool when destroyed.
  class lease {
   public:
    lease() = default;
    lease(core_memory_pool* pool, buffer memory) : pool_(pool), memory_(std::move(memory)) {}
    lease(lease&&) = default;
    lease& operator=(lease&& other) noexcept;
    ~lease();
    uint8_t* get() const { return memory_.get(); }

   private:
    void give_back();
    core_memory_pool* pool_ = nullptr;
    buffer memory_;
  };

  // A buffer of bytes() filled with the poison byte. Thread-safe. Throws std::bad_alloc.
  lease acquire();
  size_t bytes() const { return bytes_; }

 private:
  void release(buffer memory);

  const size_t bytes_;
  const uint8_t poison_;
  std::mutex mutex_;
  std::vector<buffer> free_;
};

}  // namespace aopt::sim
