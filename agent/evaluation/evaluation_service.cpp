#include "agent/evaluation/evaluation_service.hpp"

#include <utility>

#include <nlohmann/json.hpp>

#include "base/content_hash.hpp"
#include "npu/verdict_scope.hpp"

namespace aopt::agent {

bool is_cacheable(const npu::eval_result& r) {
  return !r.from_cache && !npu::is_transient_failure(r);
}

std::optional<eval_cache_entry> eval_cache_entry_for(const std::string& key,
                                                     const npu::eval_result& r) {
  if (key.empty() || !is_cacheable(r)) return std::nullopt;
  return eval_cache_entry{key, r};
}

std::string eval_cache_key(const std::string& profile_id, const npu::op_package& op,
                           const std::string& tiling, const std::string& kernel,
                           const npu::eval_options& options, bool validation) {
  // Everything that can change an evaluation's outcome: the device, the operator's spec,
  // reference and tiling header, the candidate pair, and the checking options.
  nlohmann::json spec = op.spec;
  nlohmann::json checks = {{"input_sets", options.input_sets},
                           {"repetitions", options.repetitions},
                           {"detect_races", options.detect_races},
                           {"noise", options.noise_stddev_fraction},
                           {"noise_seed", options.noise_seed}};
  if (validation) checks["validation"] = true;
  std::vector<std::string> parts = {
      profile_id, spec.dump(), op.reference_source, op.tiling_header_source,
      tiling,     kernel,      checks.dump()};
  if (std::string others = npu::other_files_digest(op); !others.empty()) parts.push_back(others);
  return content_hash(parts);
}

evaluation_service::evaluation_service(std::shared_ptr<npu::device_slots> slots,
                                       std::shared_ptr<eval_cache> cache, npu::eval_options options)
    : slots_(std::move(slots)), cache_(std::move(cache)), options_(std::move(options)) {}

evaluation_plan evaluation_service::plan(const evaluation_call& call) {
  evaluation_plan plan;
  // The checker's identity beside the profile's: a result another build of the checker gave is
  // never served as this one's.
  plan.cache_key = eval_cache_key(npu::verdict_scope(slots_->profile_id(), slots_->checker_id()),
                                  *call.op, call.tiling, call.kernel, options_, call.validation);
  if (cache_ && !call.cold) {
    if ((plan.cached = cache_->lookup(plan.cache_key))) {
      plan.cached->from_cache = true;
      ++cache_hits_;
      return plan;
    }
  }
  plan.job = {call.op, call.tiling, call.kernel, options_, call.campaign, call.validation};
  plan.job.options.cold = call.cold;
  return plan;
}

result<evaluation> evaluation_service::evaluate(const evaluation_call& call) {
  evaluation_plan planned = plan(call);
  if (planned.cached) return evaluation{std::move(*planned.cached), std::move(planned.cache_key)};
  result<npu::eval_result> r = slots_->evaluate(planned.job);
  if (!r.ok()) return r.error();
  return evaluation{std::move(*r), std::move(planned.cache_key)};
}

}  // namespace aopt::agent
