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

#include "base/unique_fd.hpp"
#include "npu/sim/device/bounded_cache.hpp"

namespace aopt::sim {
struct expected_outputs;
}

namespace aopt::npu {

class expected_cache {
 public:
  explicit expected_cache(uint64_t max_bytes) : entries_(max_bytes) {}

  std::shared_ptr<const sim::expected_outputs> find(const std::string& key) const;
  // The same outputs as the reference delivered them (driver_expected.hpp's encoding), in a
  // sealed memfd: what the judge process reads (judge_process.hpp), made once per entry
  // instead of encoded and copied for every judgement. Null when the entry was put without it.
  std::shared_ptr<const unique_fd> find_encoded(const std::string& key) const;
  // `encoded_bytes`: the size of `encoded`, counted against the bound with the decoded bytes.
  void put(const std::string& key, std::shared_ptr<const sim::expected_outputs> value,
           std::shared_ptr<const unique_fd> encoded = nullptr, uint64_t encoded_bytes = 0);

 private:
  struct entry {
    std::shared_ptr<const sim::expected_outputs> decoded;
    std::shared_ptr<const unique_fd> encoded;
  };
  mutable std::mutex mutex_;
  bounded_cache<entry> entries_;
};

// The bytes an entry holds.
uint64_t expected_bytes(const sim::expected_outputs& e);

}  // namespace aopt::npu
