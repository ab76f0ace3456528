// The reference's expected outputs of recent operators, kept in the trusted process as the
// reference delivered them (driver_expected.hpp's encoding) in a sealed memory file: what the
// judge process maps (judge_process.hpp). They depend only on the operator spec, its
// reference.cpp and the number of input sets, so an episode runs its reference process once
// instead of once per candidate. Bounded by bytes; the oldest entry goes first.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/unique_fd.hpp"
#include "npu/sim/device/bounded_cache.hpp"

namespace aopt::npu {

class expected_cache {
 public:
  explicit expected_cache(uint64_t max_bytes) : entries_(max_bytes) {}

  // The sealed delivery, or null.
  std::shared_ptr<const unique_fd> find(const std::string& key) const;
  // `bytes`: the delivery's size, counted against the bound.
  void put(const std::string& key, std::shared_ptr<const unique_fd> delivery, uint64_t bytes);

 private:
  mutable std::mutex mutex_;
  bounded_cache<std::shared_ptr<const unique_fd>> entries_;
};

}  // namespace aopt::npu
