// The driver that runs inside every compiled candidate process (DESIGN §6.1): for each input
// set it generates the inputs, runs the operator's tiling function and every block of its kernel
// on the simulated cores, and collects what the trusted checker needs: the outputs, input
// fingerprints and traces (driver_report.hpp). It judges nothing: the reference runs in another
// process (driver_expected.hpp) and the verdict is driver_judge.hpp's.
//
// Runs everything on the calling thread. Not reentrant: the kernel shim binds the running core
// to the thread (core_context).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "aopt/reference.h"
#include "driver_report.hpp"
#include "driver_spec.hpp"

namespace gert {
class TilingContext;
}

namespace aopt::sim {

// The candidate's entry points (aopt_sim/driver_entry.h). driver_main.cpp passes the globals a
// candidate build generates; tests pass their own operators. `reference` is used by run_driver
// only: a candidate process never links it.
struct candidate_entries {
  uint32_t (*tiling)(gert::TilingContext* context) = nullptr;
  void (*kernel)(uint8_t* const* args) = nullptr;
  void (*reference)(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& attrs) = nullptr;
};

// The candidate side: runs input sets 0.. until one fails or all ran.
run_report collect_report(const driver_spec& spec, const candidate_entries& entries);

// A whole evaluation in this process (tests, benches): collect_report, the reference and
// judge_run, with the report passed through its wire format. Writes an eval_result JSON object
// (driver_judge.hpp) to `result`. Returns 0 when `result` holds an evaluation (whatever its
// status), 2 when the spec or the entries are unusable (`result` then holds status
// "infra_error" naming the problem).
int run_driver(const nlohmann::json& spec, const candidate_entries& entries,
               nlohmann::json& result);

}  // namespace aopt::sim
