#include "runtime/strategy_comparison.hpp"

#include <fmt/format.h>

#include "agent/episode/campaign_metrics.hpp"

namespace aopt::runtime {
namespace {

std::vector<agent::operator_outcome> outcomes_of(const report_data& d) {
  std::vector<agent::operator_outcome> ops;
  ops.reserve(d.episodes.size());
  for (const agent::episode_state& s : d.episodes) ops.push_back(agent::outcome_of(s));
  return ops;
}

std::string metrics_row(const std::string& name, const std::string& strategy,
                        const std::string& level, const agent::campaign_metrics& m) {
  auto pct = [&](const char* key) {
    auto it = m.fast_p.find(key);
    return it == m.fast_p.end() ? 0.0 : 100 * it->second;
  };
  return fmt::format("| {} | {} | {} | {:.3f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {} | {} |\n",
                     name, strategy, level, m.geomean_speedup, pct("1.0"), pct("1.2"), pct("1.4"),
                     pct("2.0"), m.operators, m.evaluations);
}

}  // namespace

nlohmann::json comparison_json(const std::vector<report_data>& campaigns) {
  nlohmann::json out = {{"campaigns", nlohmann::json::array()}};
  for (const report_data& d : campaigns) {
    const std::vector<agent::operator_outcome> ops = outcomes_of(d);
    nlohmann::json by_level = nlohmann::json::object();
    for (const auto& [level, m] : agent::metrics_by_level(ops)) by_level[std::to_string(level)] = m;
    out["campaigns"].push_back({{"campaign", d.campaign},
                                {"strategy", d.strategy},
                                {"policies", d.policies},
                                {"device", d.device},
                                {"simulated", d.simulated},
                                {"wall_seconds", d.wall_seconds},
                                {"overall", agent::compute_metrics(ops)},
                                {"by_level", by_level}});
  }
  return out;
}

std::string comparison_markdown(const std::vector<report_data>& campaigns) {
  std::string md = "# Strategy comparison\n\n";
  bool simulated = false;
  for (const report_data& d : campaigns) simulated = simulated || d.simulated;
  if (simulated) {
    md += "Latencies are simulated by aopt's AscendC simulator, not measured on hardware.\n\n";
  }
  md +=
      "| campaign | strategy | level | GM speedup | fast_1.0 % | fast_1.2 % | fast_1.4 % | "
      "fast_2.0 % | operators | evaluations |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const report_data& d : campaigns) {
    const std::vector<agent::operator_outcome> ops = outcomes_of(d);
    for (const auto& [level, m] : agent::metrics_by_level(ops)) {
      md += metrics_row(d.campaign, d.strategy, std::to_string(level), m);
    }
    md += metrics_row(d.campaign, d.strategy, "all", agent::compute_metrics(ops));
  }
  return md;
}

}  // namespace aopt::runtime
