#include "agent/episode/campaign_metrics.hpp"

#include <cmath>
#include <cstdio>

#include "agent/episode/outcome_reason.hpp"
#include "agent/kernel_text/tunables.hpp"

namespace aopt::agent {

operator_outcome outcome_of(const episode_state& s) {
  operator_outcome o;
  o.name = s.op_name;
  o.level = s.level;
  o.phase = to_string(s.phase);
  o.failure = s.failure;
  o.baseline_us = s.baseline_us;
  o.best_us = s.best_us;
  o.speedup = (s.best_us > 0 && s.baseline_us > 0) ? s.baseline_us / s.best_us : 1.0;
  o.evaluations = s.candidates;
  o.failures = s.failures;
  o.reason = outcome_reason(s);
  o.improved = s.phase == episode_phase::done && improved_beyond_resolution(s);
  o.bound_us = s.best_result.roof.bound_us > 0 ? s.best_result.roof.bound_us : s.baseline_bound_us;
  o.baseline_fraction = s.baseline_roof_fraction;
  if (s.phase != episode_phase::failed && !s.repairing) {
    o.best_fraction = s.best_result.roof.achieved_fraction;
  }
  o.repaired_from = s.repaired_from;
  o.rejected = s.rejected;
  // The heuristic mutator keeps the template it searches (synthesized or the source's own) as
  // its state's "base"; other mutators keep none and report no tunables.
  if (s.mutator_state.is_object()) {
    const std::string base = s.mutator_state.value("base", std::string());
    if (result<std::vector<tunable>> parsed = parse_tunables(base); parsed.ok()) {
      for (const tunable& t : *parsed) o.tunables.push_back({t.name, t.value, t.note});
    }
  }
  o.stage2_by_origin = s.stage2_by_origin;
  o.accepted_by_origin = s.accepted_by_origin;
  return o;
}

const std::vector<double>& fast_p_thresholds() {
  static const std::vector<double> thresholds = {1.0, 1.2, 1.4, 2.0};
  return thresholds;
}

namespace {
std::string threshold_key(double p) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", p);
  return buf;
}
}  // namespace

campaign_metrics compute_metrics(const std::vector<operator_outcome>& ops) {
  campaign_metrics m;
  double log_sum = 0;
  std::map<double, uint32_t> above;
  for (const operator_outcome& o : ops) {
    m.evaluations += o.evaluations;
    if (o.phase == "failed" || o.baseline_us <= 0) {
      m.failed_baselines++;
      continue;
    }
    m.operators++;
    if (o.improved) m.improved++;
    log_sum += std::log(o.speedup);
    for (double p : fast_p_thresholds()) {
      if (o.speedup > p) above[p]++;
    }
  }
  m.geomean_speedup = m.operators ? std::exp(log_sum / m.operators) : 1.0;
  for (double p : fast_p_thresholds()) {
    m.fast_p[threshold_key(p)] = m.operators ? static_cast<double>(above[p]) / m.operators : 0.0;
  }
  return m;
}

std::map<int, campaign_metrics> metrics_by_level(const std::vector<operator_outcome>& ops) {
  std::map<int, std::vector<operator_outcome>> by_level;
  for (const operator_outcome& o : ops) by_level[o.level].push_back(o);
  std::map<int, campaign_metrics> out;
  for (const auto& [level, level_ops] : by_level) out[level] = compute_metrics(level_ops);
  return out;
}

void to_json(nlohmann::json& j, const operator_outcome& o) {
  j = {{"name", o.name},
       {"level", o.level},
       {"phase", o.phase},
       {"failure", o.failure},
       {"baseline_us", o.baseline_us},
       {"best_us", o.best_us},
       {"speedup", o.speedup},
       {"evaluations", o.evaluations},
       {"failures", o.failures},
       {"reason", o.reason},
       {"improved", o.improved},
       {"roofline",
        {{"bound_us", o.bound_us},
         {"baseline_fraction", o.baseline_fraction},
         {"best_fraction", o.best_fraction}}},
       {"repaired_from", o.repaired_from},
       {"rejected", o.rejected},
       {"stage2_by_origin", o.stage2_by_origin},
       {"accepted_by_origin", o.accepted_by_origin}};
  nlohmann::json tunables = nlohmann::json::array();
  for (const operator_outcome::tunable_summary& t : o.tunables)
    tunables.push_back({{"name", t.name}, {"value", t.value}, {"note", t.note}});
  j["tunables"] = tunables;
}

void to_json(nlohmann::json& j, const campaign_metrics& m) {
  j = {{"geomean_speedup", m.geomean_speedup},
       {"fast_p", m.fast_p},
       {"operators", m.operators},
       {"failed_baselines", m.failed_baselines},
       {"evaluations", m.evaluations},
       {"improved", m.improved}};
}

}  // namespace aopt::agent
