// The reference's expected outputs of recent operators, kept in the trusted process: they depend
// only on the operator spec, its reference.cpp and the number of input sets, so an episode runs
// its reference process once instead of once per candidate. Bounded by bytes; the oldest entry
// goes first.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace aopt::sim {
struct expected_outputs;
}

namespace aopt::npu {

class expected_cache {
 public:
  explicit expected_cache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  std::shared_ptr<const sim::expected_outputs> find(const std::string& key) const;
  void put(const std::string& key, std::shared_ptr<const sim::expected_outputs> value);

 private:
  uint64_t max_bytes_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const sim::expected_outputs>> entries_;
  std::deque<std::string> order_;  // oldest first
  uint64_t bytes_ = 0;
};

// The bytes an entry holds.
uint64_t expected_bytes(const sim::expected_outputs& e);

}  // namespace aopt::npu
