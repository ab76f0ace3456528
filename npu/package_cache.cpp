#include "npu/package_cache.hpp"

#include <algorithm>

namespace aopt::npu {

package_cache::package_cache(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

std::shared_ptr<const op_package> package_cache::find(const std::string& hash) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(hash);
  if (it == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  return it->second->second;
}

void package_cache::insert(const std::string& hash, std::shared_ptr<const op_package> package) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = index_.find(hash); it != index_.end()) {
    it->second->second = std::move(package);
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.emplace_front(hash, std::move(package));
  index_[hash] = order_.begin();
  while (order_.size() > capacity_) {
    index_.erase(order_.back().first);
    order_.pop_back();
    ++evictions_;
  }
}

size_t package_cache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return order_.size();
}

uint64_t package_cache::evictions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evictions_;
}

}  // namespace aopt::npu
