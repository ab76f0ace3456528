// Campaign-level results as the paper reports them: speedup = T_baseline / T_optimized per
// operator, the geometric mean over operators, and fast_p = |{op : speedup > p}| / |ops|.
// Operators whose baseline failed count with speedup 1 in neither numerator nor denominator:
// they are listed apart.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/episode_state.hpp"

namespace aopt::agent {

struct operator_outcome {
  std::string name;
  int level = 1;
  std::string phase;  // running, done, failed
  std::string failure;
  double baseline_us = 0;
  double best_us = 0;
  double speedup = 1;
  uint32_t evaluations = 0;
  std::map<std::string, uint32_t> failures;
  std::string reason;  // outcome_reason.hpp
  // Faster than the baseline by more than the measurement's resolution (outcome_reason.hpp).
  bool improved = false;
  // Roofline: the bound and the fraction of it achieved by the baseline and by the best.
  double bound_us = 0;
  double baseline_fraction = 0;
  double best_fraction = 0;
  std::string repaired_from;                 // baseline repair, when one happened
  std::map<std::string, uint32_t> rejected;  // before the device, by reason
  // Issue 35: what the search worked with. The tunables of Stage I's template (synthesized ones
  // name the source expression they came from in their note), the Stage II candidates by origin
  // (the motifs or tuples the refiner applied) and the origins of accepted candidates.
  struct tunable_summary {
    std::string name;
    // Its value in the template the mutator's latest generation started from: the baseline's in
    // the first generation, the best tiling's at the time in a later one (after Stage II changed
    // the kernel).
    int64_t value = 0;
    std::string note;
  };
  std::vector<tunable_summary> tunables;
  std::map<std::string, uint32_t> stage2_by_origin;
  std::map<std::string, uint32_t> accepted_by_origin;
};

operator_outcome outcome_of(const episode_state& s);

struct campaign_metrics {
  double geomean_speedup = 1;
  std::map<std::string, double> fast_p;  // keys "1.0", "1.2", "1.4", "2.0"
  uint32_t operators = 0;                // with a valid baseline
  uint32_t failed_baselines = 0;
  uint32_t evaluations = 0;
  uint32_t improved = 0;  // operators faster by more than the measurement's resolution
};

// The thresholds the paper reports.
const std::vector<double>& fast_p_thresholds();

campaign_metrics compute_metrics(const std::vector<operator_outcome>& ops);
// Metrics of the operators of one level only.
std::map<int, campaign_metrics> metrics_by_level(const std::vector<operator_outcome>& ops);

void to_json(nlohmann::json& j, const operator_outcome& o);
void to_json(nlohmann::json& j, const campaign_metrics& m);

}  // namespace aopt::agent
