// The outcome of evaluating one (operator, tiling T, kernel K) candidate on a device: the one
// definition the devices (the simulator's trusted checker, npu/sim/runtime/driver_judge.hpp,
// included), the actors and the views share. Between actors it travels as this typed value; its
// JSON form below is for the database (eval_cache, candidates), the HTTP API and remote workers.
//
// Persisted as JSON: do not rename JSON keys or enum strings without a storage migration.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/protocol/eval_status.hpp"

namespace aopt::npu {

// Busy time of one pipe, summed over the critical (slowest) core, like msprof op's
// PipeUtilization: time in microseconds and the ratio of the core's total time.
struct pipe_busy {
  double time_us = 0;
  double ratio = 0;
};

// One InitBuffer (or InitBufPool) of the kernel that took UB: its source line, the number of
// buffers and the bytes of each after alignment. The simulator reports them for the core with
// the largest UB total; a profiler does not.
struct ub_allocation {
  uint32_t line = 0;
  uint32_t buffers = 0;
  uint64_t bytes_each = 0;
};

// What a profiler tells about one run (msprof op on hardware, the timing model in the sim).
struct eval_profile {
  pipe_busy scalar, vector, mte2, mte3;
  // The cube's pipes on the critical core: MTE1 (L1 -> L0A/L0B), the cube itself (M: Mmad) and
  // the fixpipe (FIX: out of L0C). Zero for a core without cube work, and from a profiler that
  // does not report them.
  pipe_busy mte1, cube, fixpipe;
  uint32_t block_dim = 0;
  uint64_t ub_high_water_bytes = 0;  // largest InitBuffer total over cores
  uint64_t ub_capacity_bytes = 0;
  // In call order. Reported by the candidate's own process and unchecked: a hostile kernel can
  // only make the screening of its own rewrites (agent/episode/depth_rewrite_screen.hpp) wrong.
  std::vector<ub_allocation> ub_allocations;
  uint64_t gm_read_bytes = 0;   // GM -> UB over all cores
  uint64_t gm_write_bytes = 0;  // UB -> GM over all cores
  uint64_t dma_bursts = 0;      // DMA bursts over all cores
  double mean_burst_bytes = 0;
  uint64_t scalar_accesses = 0;  // GetValue/SetValue calls over all cores
  uint64_t vector_instructions = 0;
  double barrier_stall_us = 0;  // time the critical core's issue stalled in PipeBarrier<PIPE_ALL>
  double flag_wait_us = 0;      // time pipes of the critical core waited on flags/queues
  double auto_sync_wait_us =
      0;               // part of flag_wait_us spent in compiler-inserted (auto-sync) waits
  uint32_t waves = 0;  // blockDim over the physical cores, rounded up
  double launch_overhead_us = 0;
  double core_time_max_us = 0;  // slowest core, without launch overhead
  double core_time_mean_us = 0;
  uint64_t trace_instructions = 0;
  // The simulator only: d latency_us / d constant for each hardware-profile constant the timing
  // model charges linearly (sim/runtime/timing_sensitivity.hpp): the features `aopt calibrate`
  // fits measured latencies with. Empty from a profiler.
  std::map<std::string, double> latency_sensitivity;
};

// The time no implementation can beat (npu/sim/runtime/roofline.hpp computes it): a property of
// the operator on the run's shapes, the same for every candidate (issue 30 item 4).
struct roofline {
  double memory_bound_us = 0;    // minimal GM bytes (inputs + outputs) / aggregate HBM bandwidth
  double vector_bound_us = 0;    // the operator's least vector work (op.json least_work) at peak
  double compute_bound_us = 0;   // its least cube MACs (op.json least_work) at peak MAC rate
  double bound_us = 0;           // launch overhead of one core + max(memory, vector, compute)
  double achieved_fraction = 0;  // bound_us / latency_us; above 1 means faster than possible
};

struct latency_stats {
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  double stddev_us = 0;
  uint32_t repetitions = 0;
};

// --- hardware measurement (cann and cascade devices) ---------------------------------------------
// Latency statistics of a candidate measured on an NPU by the measurement protocol
// (npu/cann/measurement_protocol.hpp), the verdict of its paired comparison with the current
// best, and where it was measured. Absent (measured = false) on the simulator.
struct measurement_stats {
  bool measured = false;
  double median_us = 0;
  double q1_us = 0;
  double q3_us = 0;
  double iqr_us = 0;
  uint32_t n = 0;
  // "" (not compared: the first candidate of an operator, or the simulator), "faster" (the
  // speedup's confidence interval lies above 1 + epsilon), "not_faster", or "filtered" (the
  // cascade kept it off the hardware: predicted too slow).
  std::string verdict;
  double speedup = 0;  // vs the current best, when compared
  double speedup_ci_low = 0;
  double speedup_ci_high = 0;
  uint32_t pairs = 0;
  std::string device_id;
  std::string cann_version;
  std::string driver_version;
  double clock_mhz = 0;
};

// Where the wall time of one evaluation went, seconds: the per-phase profile of issue 33. The
// simulator device fills it; phases a device does not have stay 0. The phases are not timed
// against each other: the build runs beside the reference, and the source screen beside the
// build, so only the time the build's result waited for the screen after the build counts.
struct eval_phases {
  double inputs = 0;       // drawing, or fetching from the input store, the input sets
  double reference = 0;    // the expected outputs: reference built and run (0 when cached)
  double compile = 0;      // compiling the candidate's units (0 for units the object cache had)
  double symbols = 0;      // checking the objects' symbols
  double link = 0;         // linking (0 when the executable came from the cache)
  double screen_wait = 0;  // waiting for the source screen once the build was done
  double run = 0;          // the candidate process: kernel, trace and delivery
  double decode = 0;       // reading the delivery
  double check = 0;        // outputs and traces checked, every input set
  double timing = 0;       // the timing model and race detection on the first set's trace
};

// The phases by name ("inputs", "reference", ...), in the order an evaluation goes through them.
std::vector<std::pair<const char*, double>> named_phases(const eval_phases& p);

// Whether `r` improves on a best of `best_us`: the measurement verdict when there is one, the
// latencies otherwise.
struct eval_result;
bool improves_on(const eval_result& r, double best_us);

struct eval_result {
  eval_status status = eval_status::infra_error;
  // Refines `status`: "data_race", "suspicious", "mismatch", "input_modified", "unwritten_output",
  // "deadlock", "ub_overflow", "gm_out_of_bounds", "misaligned", "signal", ... ; empty for ok.
  std::string error_kind;
  std::string message;    // one line naming the API call/tensor and values
  double latency_us = 0;  // median; simulated microseconds on the sim device
  latency_stats latency;
  bool latency_is_simulated = true;
  eval_profile profile;
  roofline roof;
  std::vector<std::string> diagnostics;  // trimmed compiler/runtime output
  // Findings that do not fail the candidate but a user should see: reads past a GM tensor's
  // allocation padding, instructions reading uninitialised UB, queue tensors held to the end.
  std::vector<std::string> warnings;
  std::string device;          // device kind, e.g. "sim"
  std::string device_profile;  // hardware profile id, e.g. "ascend910b4"
  double compile_seconds = 0;
  double run_seconds = 0;
  eval_phases phases;
  bool from_cache = false;
  // The result of an improvement's confirmation (agent/episode/improvement_confirmation.hpp):
  // the slower of a first and a cold evaluation. Answered from the cache, it needs no second one.
  bool confirmed = false;
  measurement_stats measurement;  // cann and cascade devices

  bool ok() const { return status == eval_status::ok; }
};

// Whether a failed result may say more about the machine at the time than about the candidate:
// an infrastructure failure, or a run killed at the wall-clock limit (a loaded machine starves
// it; a CPU-time limit is the candidate's own). Such a result is neither cached nor final.
bool is_transient_failure(const eval_result& r);

// One line: "ok, 12.5 us", or "runtime_error/gm_out_of_bounds: DataCopy past z".
std::string describe_outcome(const eval_result& r);

// Makes every text of `r` (message, diagnostics, ...) valid UTF-8: they quote candidate output
// and compiler diagnostics, which may hold any bytes.
void make_valid_utf8(eval_result& r);

void to_json(nlohmann::json& j, const eval_result& r);
void from_json(const nlohmann::json& j, eval_result& r);
// The "profile", "roofline" and "measurement" objects of eval_result's JSON form.
void to_json(nlohmann::json& j, const eval_profile& p);
void from_json(const nlohmann::json& j, eval_profile& p);
void to_json(nlohmann::json& j, const roofline& r);
void from_json(const nlohmann::json& j, roofline& r);
void to_json(nlohmann::json& j, const measurement_stats& m);
void to_json(nlohmann::json& j, const eval_phases& p);
void from_json(const nlohmann::json& j, eval_phases& p);
void from_json(const nlohmann::json& j, measurement_stats& m);

}  // namespace aopt::npu
