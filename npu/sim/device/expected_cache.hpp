// The reference's expected outputs of recent operators, kept in the trusted process: they depend
// only on the operator spec, its reference.cpp and the number of input sets, so an episode runs
// its reference process once instead of once per candidate. Bounded by bytes; the oldest entry
// goes first.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "npu/sim/device/bounded_cache.hpp"

namespace aopt::sim {
struct expected_outputs;
}

namespace aopt::npu {

class expected_cache {
 public:
  explicit expected_cache(uint64_t max_bytes) : entries_(max_bytes) {}

  std::shared_ptr<const sim::expected_outputs> find(const std::string& key) const;
  void put(const std::string& key, std::shared_ptr<const sim::expected_outputs> value);

 private:
  mutable std::mutex mutex_;
  bounded_cache<std::shared_ptr<const sim::expected_outputs>> entries_;
};

// The bytes an entry holds.
uint64_t expected_bytes(const sim::expected_outputs& e);

}  // namespace aopt::npu
