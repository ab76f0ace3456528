// A whole evaluation in this process (tests): the candidate side (collect_report, driver.hpp),
// the reference (driver_expected.hpp) and the verdict (judge_run, driver_judge.hpp), with the
// report passed through its wire format as between the processes of sim_device. Not linked into
// candidates: it holds the checker.
#pragma once

#include <nlohmann/json.hpp>

#include "driver.hpp"

namespace aopt::sim {

// Reads the spec as the candidate process reads spec.json and writes the eval_result's JSON form
// (npu/protocol/eval_result.hpp) to `result`, plus the first input set's "tiling_key",
// "block_dim" and "workspace_bytes" when it was delivered. Returns 0 when `result` holds an
// evaluation (whatever its status), 2 when the spec or the entries are unusable (`result` then
// holds status "infra_error" naming the problem).
int run_driver(const nlohmann::json& spec, const candidate_entries& entries,
               nlohmann::json& result);

}  // namespace aopt::sim
