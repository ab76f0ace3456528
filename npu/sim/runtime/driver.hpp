// The driver that runs inside every compiled candidate process (docs/design.md §6.1): for each
// input set it generates the inputs, runs the operator's tiling function and every block of its
// kernel on the simulated cores, and collects what the trusted checker needs: the outputs, input
// fingerprints and traces (driver_report.hpp). It judges nothing: the reference runs in another
// process (driver_expected.hpp) and the verdict is driver_judge.hpp's (run_driver.hpp runs all
// three in one process for tests).
//
// Runs the input sets on the calling thread, or on spec.set_threads threads at once (each set's
// cores bound to the thread that runs it, core_context); the report does not depend on which.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// What the tiling function decided for the inputs of one set, before any check: the candidate
// side of a run (run_tiling in driver.cpp checks it) and of a tiling probe (tiling_probe_main.cpp
// delivers it; the trusted side judges it).
struct tiling_call {
  std::string exception;  // ": <what()>" or " a non-standard exception" when it threw; else empty
  uint32_t status = 0;    // the ge::graphStatus it returned
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  uint64_t workspace_bytes = 0;
  uint64_t data_size = 0;           // SetDataSize of the raw tiling data
  std::vector<uint8_t> data;        // the raw buffer's full capacity; bytes past data_size poisoned
  bool wrote_without_size = false;  // data_size 0 but the buffer holds bytes
};

// Builds the operator's TilingContext (shapes, dtypes, attrs, the profile's platform) and calls
// `tiling` once; `inputs` holds each input's bytes in op.json order. Never throws for what the
// tiling function does.
tiling_call call_tiling(const driver_spec& spec, uint32_t (*tiling)(gert::TilingContext*),
                        const std::vector<const uint8_t*>& inputs);

// The candidate side: runs input sets 0.. until one fails or all ran (the sets after a failed
// one are left out of the report, whether or not a thread already ran them).
run_report collect_report(const driver_spec& spec, const candidate_entries& entries);

}  // namespace aopt::sim
