#include "core_memory_pool.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace aopt::sim {

void core_memory_pool::free_deleter::operator()(uint8_t* p) const {
  std::free(p);
}

core_memory_pool::core_memory_pool(size_t bytes, uint8_t poison) : bytes_(bytes), poison_(poison) {}

core_memory_pool::lease& core_memory_pool::lease::operator=(lease&& other) noexcept {
  if (this != &other) {
    give_back();
    pool_ = std::exchange(other.pool_, nullptr);
    memory_ = std::move(other.memory_);
  }
  return *this;
}

core_memory_pool::lease::~lease() {
  give_back();
}

void core_memory_pool::lease::give_back() {
  if (pool_ != nullptr && memory_) pool_->release(std::move(memory_));
  pool_ = nullptr;
}

core_memory_pool::lease core_memory_pool::acquire() {
  buffer memory;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      memory = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!memory) {
    // 64-byte aligned, rounded to a whole number of alignments as aligned_alloc requires.
    memory.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes_ + 63) / 64 * 64)));
    if (!memory) throw std::bad_alloc();
  }
  std::memset(memory.get(), poison_, bytes_);
  return lease(this, std::move(memory));
}

void core_memory_pool::release(buffer memory) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(memory));
}

}  // namespace aopt::sim
