// The trusted checker's verdict (issue 17 item 1): from the operator spec, what the candidate
// process delivered (driver_report.hpp) and the reference's expected outputs
// (driver_expected.hpp), it decides status and latency; the candidate's process has no say.
//
// Per input set, in order: the candidate's own failure if it reported one; the tiling decisions
// within bounds; inputs unchanged (fingerprints); every output within tolerance of the reference
// (an output equal to the previous set's expected one is "stale_output": results cached across
// input sets); the trace consistent and accounting for the outputs (driver_trace_check.hpp).
// Then the first set's traces are replayed through the timing model, searched for data races,
// and the latency must be positive and at least the roofline bound ("suspicious").
//
// The result is an eval_result JSON object (npu/eval_result.hpp keys) plus "tiling_key",
// "block_dim" and "workspace_bytes".
#pragma once

#include <nlohmann/json.hpp>

#include "driver_expected.hpp"
#include "driver_report.hpp"
#include "driver_spec.hpp"

namespace aopt::sim {

nlohmann::json judge_run(const driver_spec& spec, const run_report& report,
                         const expected_outputs& expected);

// The JSON result of an evaluation that ended before a verdict: status, kind and message set.
nlohmann::json failed_result(const driver_spec* spec, const std::string& status,
                             const std::string& kind, const std::string& message);

}  // namespace aopt::sim
