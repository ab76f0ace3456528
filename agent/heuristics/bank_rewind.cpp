#include "agent/heuristics/bank_rewind.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "agent/bank/bank_index.hpp"
#include "agent/heuristics/heuristic_diagnoser.hpp"
#include "agent/kernel_text/code_diff.hpp"
#include "agent/motifs/rewind_rules.hpp"
#include "base/content_hash.hpp"

namespace aopt::agent {

bool significant_slowdown(const npu::eval_result& fast, const npu::eval_result& slow,
                          double significance, double noise_sigmas) {
  if (!fast.ok() || !slow.ok() || fast.latency_us <= 0) return false;
  const double gain = slow.latency_us - fast.latency_us;
  if (gain <= significance * fast.latency_us) return false;
  const bool spread_known = fast.latency.repetitions > 1 || slow.latency.repetitions > 1;
  if (!spread_known) return true;
  const double noise = std::hypot(fast.latency.stddev_us, slow.latency.stddev_us);
  return gain > noise_sigmas * noise;
}

rewind_proposer heuristic_rewind_proposer() {
  return [](const std::string& kernel, const std::vector<std::string>& tried,
            uint32_t) -> result<rewind_proposal> {
    for (const kernel_rule& rule : rewind_rules()) {
      if (std::find(tried.begin(), tried.end(), rule.name) != tried.end()) continue;
      if (!rule.applies(kernel)) continue;
      result<std::string> out = rule.apply(kernel);
      if (!out.ok()) continue;
      return rewind_proposal{rule.name,       rule.category, "removes: " + rule.title,
                             std::move(*out), &rule,         ""};
    }
    return not_found("no rewind rule left that applies to the kernel");
  };
}

namespace {

// The expert's tiling program with `kernel`. No result from the service (its slots are gone) is
// the step's infrastructure failure, as a device reports its own.
npu::eval_result evaluate_kernel(evaluation_service& evaluations,
                                 const std::shared_ptr<const npu::op_package>& expert,
                                 const std::string& kernel) {
  // "bank": the campaign the device pool books the evaluation to.
  result<evaluation> e = evaluations.evaluate({expert, expert->host_source, kernel, "bank"});
  if (e.ok()) return std::move(e->result);
  npu::eval_result failed;
  failed.status = npu::eval_status::infra_error;
  failed.message = e.error().message();
  return failed;
}

}  // namespace

result<rewind_trajectory> rewind_expert(evaluation_service& evaluations,
                                        std::shared_ptr<const npu::op_package> expert,
                                        const rewind_proposer& propose,
                                        const rewind_options& options) {
  rewind_trajectory trajectory;
  trajectory.expert_op = expert->spec.name;
  trajectory.expert_result = evaluate_kernel(evaluations, expert, expert->kernel_source);
  if (!trajectory.expert_result.ok()) {
    return failed_precondition("expert " + expert->spec.name +
                               " does not evaluate ok: " + trajectory.expert_result.message);
  }
  std::string current = expert->kernel_source;
  npu::eval_result current_result = trajectory.expert_result;
  uint32_t t = 0;
  std::vector<std::string> tried;
  for (uint32_t index = 1; index <= options.max_steps; ++index) {
    result<rewind_proposal> proposal = propose(current, tried, index);
    if (!proposal.ok()) break;
    rewind_step step;
    step.index = index;
    step.motif = proposal->motif;
    step.category = proposal->category;
    step.description = proposal->description;
    step.from_step = t;
    if (!proposal->failure.empty()) {
      step.verdict = "proposal_failed: " + proposal->failure;
      trajectory.steps.push_back(std::move(step));
      continue;
    }
    tried.push_back(proposal->motif);
    step.kernel = std::move(proposal->kernel);
    if (step.kernel == current) {
      step.verdict = "unchanged";
      trajectory.steps.push_back(std::move(step));
      continue;
    }
    step.result = evaluate_kernel(evaluations, expert, step.kernel);
    if (!step.result.ok()) {
      step.verdict = std::string("infeasible: ") + npu::to_string(step.result.status);
    } else if (!significant_slowdown(current_result, step.result, options.significance,
                                     options.noise_sigmas)) {
      step.verdict = "not_slower";
    } else {
      step.kept = true;
      step.verdict = "kept";
      trajectory.pairs.push_back(rewind_pair{t, step.motif, step.category, step.description,
                                             proposal->rule, step.kernel, current, step.result,
                                             current_result});
      current = step.kernel;
      current_result = step.result;
      ++t;
    }
    trajectory.steps.push_back(std::move(step));
  }
  return trajectory;
}

std::map<std::string, double> profile_deltas(const npu::eval_result& slow,
                                             const npu::eval_result& fast) {
  const npu::eval_profile& s = slow.profile;
  const npu::eval_profile& f = fast.profile;
  std::map<std::string, double> d;
  auto put = [&d](const char* name, double before, double after) {
    if (after != before) d[name] = after - before;
  };
  put("latency_us", slow.latency_us, fast.latency_us);
  put("mte2.ratio", s.mte2.ratio, f.mte2.ratio);
  put("mte3.ratio", s.mte3.ratio, f.mte3.ratio);
  put("vector.ratio", s.vector.ratio, f.vector.ratio);
  put("scalar.ratio", s.scalar.ratio, f.scalar.ratio);
  put("mte1.ratio", s.mte1.ratio, f.mte1.ratio);
  put("cube.ratio", s.cube.ratio, f.cube.ratio);
  put("fixpipe.ratio", s.fixpipe.ratio, f.fixpipe.ratio);
  put("barrier_stall_us", s.barrier_stall_us, f.barrier_stall_us);
  put("flag_wait_us", s.flag_wait_us, f.flag_wait_us);
  put("mean_burst_bytes", s.mean_burst_bytes, f.mean_burst_bytes);
  put("dma_bursts", static_cast<double>(s.dma_bursts), static_cast<double>(f.dma_bursts));
  put("gm_bytes", static_cast<double>(s.gm_read_bytes + s.gm_write_bytes),
      static_cast<double>(f.gm_read_bytes + f.gm_write_bytes));
  put("ub_high_water_bytes", static_cast<double>(s.ub_high_water_bytes),
      static_cast<double>(f.ub_high_water_bytes));
  put("scalar_accesses", static_cast<double>(s.scalar_accesses),
      static_cast<double>(f.scalar_accesses));
  return d;
}

slow_kernel_diagnosis diagnose_slow_kernel(const npu::op_package& expert, const rewind_pair& pair) {
  diagnosis_input input;
  input.result = &pair.slow_result;
  input.kernel = pair.slow_kernel;
  input.io_bytes = expert.spec.io_bytes();
  input.tensor_count =
      static_cast<uint32_t>(expert.spec.inputs.size() + expert.spec.outputs.size());
  heuristic_diagnosis diag = heuristic_diagnoser{}.diagnose(input);
  return {std::move(diag.query), std::move(diag.tags)};
}

double top_k_hit_rate(const retriever& r, const std::vector<retrieval_probe>& probes, size_t k) {
  if (probes.empty()) return 0;
  size_t hits = 0;
  for (const retrieval_probe& p : probes) {
    for (const retrieval_hit& h : r.top_k(p.query, k)) {
      if (h.id == p.tuple_id) {
        ++hits;
        break;
      }
    }
  }
  return static_cast<double>(hits) / static_cast<double>(probes.size());
}

experience_tuple distill_pair(const npu::op_package& expert, const rewind_pair& pair,
                              const std::string& policy) {
  const slow_kernel_diagnosis diag = diagnose_slow_kernel(expert, pair);

  experience_tuple t;
  t.category = pair.category;
  if (pair.rule != nullptr) {
    t.title = pair.rule->title;
    t.description = pair.rule->description;
    t.bottleneck = pair.rule->bottleneck;
    t.tags = pair.rule->tags;
  } else {
    t.title = pair.motif;
    t.description = pair.description;
  }
  if (!diag.query.empty()) t.bottleneck += (t.bottleneck.empty() ? "" : " ") + diag.query;
  for (const std::string& tag : diag.tags) {
    if (std::find(t.tags.begin(), t.tags.end(), tag) == t.tags.end()) t.tags.push_back(tag);
  }
  t.code_diff = make_unified_diff(pair.slow_kernel, pair.fast_kernel);
  t.provenance.expert_op = expert.spec.name;
  t.provenance.step = pair.step;
  t.provenance.latency_before_us = pair.slow_result.latency_us;
  t.provenance.latency_after_us = pair.fast_result.latency_us;
  t.provenance.profile_deltas = profile_deltas(pair.slow_result, pair.fast_result);
  t.provenance.policy = policy;
  t.provenance.rule = pair.rule != nullptr ? pair.rule->name : std::string();
  t.embedding = lexical_embedding(t.bottleneck);
  t.id = derive_tuple_id(t);
  return t;
}

pair_distiller heuristic_distiller(const std::string& policy) {
  return
      [policy](const npu::op_package& expert, const rewind_pair& pair) -> result<experience_tuple> {
        return distill_pair(expert, pair, policy);
      };
}

result<distilled_expert> rewind_and_distill(evaluation_service& evaluations,
                                            std::shared_ptr<const npu::op_package> expert,
                                            const rewind_proposer& propose,
                                            const pair_distiller& distill,
                                            const rewind_options& options) {
  result<rewind_trajectory> trajectory = rewind_expert(evaluations, expert, propose, options);
  if (!trajectory.ok()) return trajectory.error();
  distilled_expert out;
  out.trajectory = std::move(*trajectory);
  for (const rewind_pair& pair : out.trajectory.pairs) {
    result<experience_tuple> t = distill(*expert, pair);
    if (!t.ok()) {
      out.failures.push_back(fmt::format("{} step {}: distillation: {}", expert->spec.name,
                                         pair.step, t.error().to_string()));
      continue;
    }
    out.tuples.push_back({pair.step, std::move(*t), diagnose_slow_kernel(*expert, pair).query});
  }
  return out;
}

std::string rewind_record_key(const npu::op_package& expert, const std::string& policy,
                              const std::string& device_scope, double significance) {
  return content_hash({"bank-rewind-v1", nlohmann::json(expert.spec).dump(),
                       expert.tiling_header_source, expert.host_source, expert.kernel_source,
                       expert.reference_source, policy, device_scope,
                       fmt::format("{:.17g}", significance)});
}

}  // namespace aopt::agent
