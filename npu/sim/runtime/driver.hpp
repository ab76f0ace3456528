// The driver that runs inside every compiled candidate process (DESIGN §6.1): for each input
// set it generates inputs, runs the operator's tiling function and every block of its kernel on
// the simulated cores, and checks the outputs against the reference; then it times the first
// set's traces, looks for data races and compares the latency with the roofline.
//
// The result is an eval_result JSON object (npu/eval_result.hpp keys) plus "tiling_key",
// "block_dim" and "workspace_bytes". Statuses: "ok", "runtime_error" (tiling failure, bad
// blockDim, a simulator check, an exception from the kernel or reference), "precision_error"
// (error_kind "mismatch", "unwritten_output", "input_modified", "data_race", "suspicious") and
// "infra_error" (a spec the driver cannot use).
//
// Runs everything on the calling thread. Not reentrant: the kernel shim binds the running core
// to the thread (core_context).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "aopt/reference.h"

namespace gert {
class TilingContext;
}

namespace aopt::sim {

// The candidate's entry points (aopt_sim/driver_entry.h). driver_main.cpp passes the globals a
// candidate build generates; tests pass their own operators.
struct candidate_entries {
  uint32_t (*tiling)(gert::TilingContext* context) = nullptr;
  void (*kernel)(uint8_t* const* args) = nullptr;
  void (*reference)(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& attrs) = nullptr;
};

// Evaluates the candidate on `spec` (see driver_spec.hpp) and writes the outcome to `result`.
// Returns 0 when `result` holds an evaluation (whatever its status), 2 when the spec or the
// entries are unusable (`result` then holds status "infra_error" naming the problem).
int run_driver(const nlohmann::json& spec, const candidate_entries& entries,
               nlohmann::json& result);

}  // namespace aopt::sim
