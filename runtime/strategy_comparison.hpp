// Side-by-side results of several campaigns over the same operators, typically one per strategy
// (the paper's Table 2 layout): geometric-mean speedup and fast_p per level and overall, with
// the evaluations each spent.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/report.hpp"

namespace aopt::runtime {

// {"campaigns": [{"campaign", "strategy", "wall_seconds", "overall": metrics,
//                 "by_level": {"1": metrics, ...}}, ...]}
nlohmann::json comparison_json(const std::vector<report_data>& campaigns);

// A Markdown table: one row per campaign and level ("all" last), columns GM, fast_1.0..2.0,
// operators and evaluations.
std::string comparison_markdown(const std::vector<report_data>& campaigns);

}  // namespace aopt::runtime
