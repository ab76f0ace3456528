#include "agent/evaluation/eval_cache.hpp"

#include "base/content_hash.hpp"

namespace aopt::agent {

bool is_cacheable(const npu::eval_result& r) {
  return !r.from_cache && !npu::is_transient_failure(r);
}

std::string eval_cache_key(const std::string& profile_id, const npu::op_package& op,
                           const std::string& tiling, const std::string& kernel,
                           const npu::eval_options& options) {
  // Everything that can change an evaluation's outcome: the device, the operator's spec,
  // reference and tiling header, the candidate pair, and the checking options.
  nlohmann::json spec = op.spec;
  nlohmann::json checks = {{"input_sets", options.input_sets},
                           {"repetitions", options.repetitions},
                           {"detect_races", options.detect_races},
                           {"noise", options.noise_stddev_fraction},
                           {"noise_seed", options.noise_seed}};
  return content_hash({profile_id, spec.dump(), op.reference_source, op.tiling_header_source,
                       tiling, kernel, checks.dump()});
}

}  // namespace aopt::agent
