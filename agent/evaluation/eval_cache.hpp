// The evaluation cache: the same (device profile, operator, T, K) is never evaluated twice.
// Entries are written by the episode journal together with the transition that used them.
#pragma once

#include <optional>
#include <string>

#include "npu/device.hpp"

namespace aopt::agent {

class eval_cache {
 public:
  virtual ~eval_cache() = default;
  virtual std::optional<npu::eval_result> lookup(const std::string& key) = 0;
};

// Whether a fresh evaluation result may be stored: not a transient failure
// (npu::is_transient_failure); such a candidate is evaluated again when it comes up again.
bool is_cacheable(const npu::eval_result& r);

// The cache key of evaluating (T, K) of `op` on a device with `profile_id` under `options`.
std::string eval_cache_key(const std::string& profile_id, const npu::op_package& op,
                           const std::string& tiling, const std::string& kernel,
                           const npu::eval_options& options);

}  // namespace aopt::agent
