#include "npu/sim/device/expected_cache.hpp"

#include "npu/sim/runtime/driver_expected.hpp"

namespace aopt::npu {

uint64_t expected_bytes(const sim::expected_outputs& e) {
  uint64_t bytes = 0;
  for (const auto& s : e.sets) {
    for (const auto& o : s.outputs) bytes += o.size() * sizeof(double);
  }
  return bytes;
}

std::shared_ptr<const sim::expected_outputs> expected_cache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second;
}

void expected_cache::put(const std::string& key,
                         std::shared_ptr<const sim::expected_outputs> value) {
  const uint64_t size = expected_bytes(*value);
  if (size > max_bytes_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.count(key) != 0) return;
  while (bytes_ + size > max_bytes_ && !order_.empty()) {
    auto it = entries_.find(order_.front());
    bytes_ -= expected_bytes(*it->second);
    entries_.erase(it);
    order_.pop_front();
  }
  entries_.emplace(key, std::move(value));
  order_.push_back(key);
  bytes_ += size;
}

}  // namespace aopt::npu
