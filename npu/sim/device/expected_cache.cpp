#include "npu/sim/device/expected_cache.hpp"

#include "npu/sim/runtime/driver_expected.hpp"

namespace aopt::npu {

uint64_t expected_bytes(const sim::expected_outputs& e) {
  uint64_t bytes = 0;
  for (const auto& s : e.sets) {
    for (const auto& o : s.outputs) bytes += o.size() * sizeof(double);
  }
  for (const auto& input : e.first_set_inputs) bytes += input.size();
  return bytes;
}

std::shared_ptr<const sim::expected_outputs> expected_cache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* found = entries_.find(key);
  return found == nullptr ? nullptr : found->decoded;
}

std::shared_ptr<const unique_fd> expected_cache::find_encoded(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* found = entries_.find(key);
  return found == nullptr ? nullptr : found->encoded;
}

void expected_cache::put(const std::string& key, std::shared_ptr<const sim::expected_outputs> value,
                         std::shared_ptr<const unique_fd> encoded, uint64_t encoded_bytes) {
  const uint64_t size = expected_bytes(*value) + encoded_bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.put(key, entry{std::move(value), std::move(encoded)}, size);
}

}  // namespace aopt::npu
