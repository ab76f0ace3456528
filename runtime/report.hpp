// Campaign reports (docs/design.md §8): JSON, Markdown and a self-contained HTML page with SVG plots,
// after the paper's Fig. 2 (speedup CDF) and Fig. 4 (best latency against evaluations, stage
// switches marked). Latencies are labelled simulated when they come from the simulator.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/campaign_metrics.hpp"
#include "agent/episode/episode_state.hpp"
#include "base/status.hpp"
#include "llm/token_ledger.hpp"
#include "npu/cascade_device.hpp"
#include "runtime/finalist_remeasurement.hpp"

namespace aopt::runtime {

struct report_data {
  std::string campaign;
  std::string strategy;
  std::string policies;  // e.g. "mutator=heuristic-mutator, refiner=heuristic-refiner"
  std::string device;    // e.g. "sim:ascend910b4"
  bool simulated = true;
  double wall_seconds = 0;
  std::vector<agent::episode_state> episodes;
  // LLM calls and tokens per (campaign, operator, role); unset when no role used the LLM.
  std::optional<llm::token_ledger> llm_usage;
  // device.kind = "cascade": candidates stopped per stage, over every run of the campaign.
  std::optional<npu::cascade_counts> cascade;
  // The end-of-campaign re-measurement (hardware devices): where present, an operator's final
  // baseline, best and speedup are these numbers, and the report says so.
  std::optional<std::vector<operator_finalists>> finalists;
};

// The summary object `aopt run --json` prints: campaign, geomean_speedup, fast_p, evaluations,
// operators[] (name, level, baseline_us, best_us, speedup, evaluations, failures), by_level,
// and llm_usage (llm/token_ledger_json.hpp) when the campaign used the LLM. `aopt run --json` and
// `aopt resume --json` add "pool": the device pool's counts of that process alone (evaluated:
// device evaluations, cache_hits: jobs answered from the evaluation cache, slots, max_in_flight).
nlohmann::json report_json(const report_data& data);
std::string report_markdown(const report_data& data);
std::string report_html(const report_data& data);

// One line of LLM totals: calls, cache hits, failures, tokens used and billed, cost if priced.
std::string llm_usage_text(const llm::token_ledger& usage);

// Writes report.json, report.md and report.html (as `formats` asks) into `dir`.
status write_reports(const report_data& data, const std::filesystem::path& dir,
                     const std::vector<std::string>& formats);

}  // namespace aopt::runtime
