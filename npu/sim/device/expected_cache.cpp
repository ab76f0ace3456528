#include "npu/sim/device/expected_cache.hpp"

namespace aopt::npu {

std::shared_ptr<const unique_fd> expected_cache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* found = entries_.find(key);
  return found == nullptr ? nullptr : *found;
}

void expected_cache::put(const std::string& key, std::shared_ptr<const unique_fd> delivery,
                         uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.put(key, std::move(delivery), bytes);
}

}  // namespace aopt::npu
