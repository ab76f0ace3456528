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
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "driver_expected.hpp"
#include "driver_report.hpp"
#include "driver_spec.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::sim {

// What the tiling function decided for the first input set.
struct tiling_decision {
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  uint64_t workspace_bytes = 0;
};

struct judgement {
  npu::eval_result result;
  std::optional<tiling_decision> first_set_tiling;  // absent when no set was delivered
};

// The input sets are checked on up to `check_threads` threads (the cores the evaluation's run
// had); the verdict, warnings and report do not depend on it.
judgement judge_run(const driver_spec& spec, const run_report& report,
                    const expected_outputs& expected, uint32_t check_threads = 1);

// The result of an evaluation that ended before a verdict: status, kind and message set.
npu::eval_result failed_result(const driver_spec* spec, npu::eval_status status,
                               const std::string& kind, const std::string& message);

}  // namespace aopt::sim
