// The real-hardware device (device.kind = "cann"): a candidate goes through the [cann] command
// templates (cann_command.hpp) on an Ascend NPU, its outputs are checked against the operator's
// reference on the host (reference_runner.hpp), and its latency comes from msprof's output
// (msprof_reader.hpp) under the measurement protocol (measurement_protocol.hpp).
//
// One evaluation:
//   1. a fresh private work_dir <work_root>/<op>-XXXXXX; the operator package is copied to
//      <work_dir>/op ({op_dir}) with op_host/op_kernel replaced by the candidate's T and K;
//   2. build, then install (when configured);
//   3. an NPU id is taken from device_ids (one evaluation per NPU at a time); per input set, the
//      inputs are written to <work_dir>/input/<tensor>.bin, `run` writes
//      <work_dir>/output/<tensor>.bin, and each output is compared with the reference;
//   4. timing, under a lock per operator: the first candidate of an operator (its baseline) is
//      measured alone; later ones are compared with the operator's current best in interleaved
//      pairs, verdict "faster" or "not_faster"; a "faster" one becomes the best and, as a
//      finalist, is re-measured with finalist_factor x the samples. Every baseline_every
//      comparisons the baseline is re-measured and a drift beyond drift_threshold is logged as
//      an alarm and published on the drift_board (read by /metrics). Each sample runs `profile`
//      (after `flush`, when set) and reads the newest OPPROF_* directory or op_summary_*.csv under
//      <work_dir>/prof.
// remeasure() (the end-of-campaign re-measurement of finalists) runs steps 1-3 the same way and
// then measures the candidate alone with finalist_factor x the samples, without a comparison
// and without changing the operator's best or baseline.
// The work_dirs of an operator's baseline and best stay on disk while they are (for the pairs);
// the others are removed (kept on failure with keep_scratch).
//
// Thread-safety: evaluate() may run on several threads at once; evaluations never share a
// work_dir.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "npu/cann/drift_board.hpp"
#include "npu/cann/measurement_protocol.hpp"
#include "npu/device.hpp"
#include "npu/measurement_log.hpp"
#include "npu/sim/device/candidate_builder.hpp"

namespace aopt::npu {

class reference_runner;

struct cann_commands {
  std::string build;
  std::string install;  // "" = none
  std::string run;
  std::string profile;
  std::string flush;           // "" = none
  std::string cann_version;    // "" = record "unknown"
  std::string driver_version;  // "" = record "unknown"
};

struct cann_device_options {
  cann_commands commands;
  uint64_t flush_bytes = 201326592;
  std::vector<std::string> device_ids = {"0"};
  protocol_settings protocol;
  std::filesystem::path work_dir;   // default: <system temp>/aopt-cann
  std::filesystem::path cache_dir;  // compiled references; default: <work_dir>/cache
  bool keep_scratch = false;
  std::string profile_name = "ascend910b4";           // the chip, for profile_id() and results
  sim_toolchain toolchain = default_sim_toolchain();  // compiles the reference on the host
  std::shared_ptr<measurement_log> log;               // null: no measurements file
  std::shared_ptr<drift_board> drift;                 // null: a board of the device's own
};

class cann_device : public device {
 public:
  // Errors: invalid_argument for unusable options (no device id, bad protocol settings).
  static result<std::shared_ptr<cann_device>> create(cann_device_options options);
  ~cann_device() override;

  eval_result evaluate(const op_package& op, const std::string& tiling_source,
                       const std::string& kernel_source, const eval_options& options) override;

  // "cann:<profile name>"
  std::string profile_id() const override;

  std::optional<eval_result> remeasure(const op_package& op, const std::string& tiling_source,
                                       const std::string& kernel_source,
                                       const eval_options& options) override;

  // The latest baseline drift check of each (operator, NPU).
  std::vector<drift_reading> drift_readings() const { return options_.drift->readings(); }

 private:
  struct measured_candidate;
  struct op_state;
  class npu_lease;
  class profile_target;

  explicit cann_device(cann_device_options options);
  std::shared_ptr<op_state> state_of(const op_package& op);
  std::string acquire_npu();
  void release_npu(const std::string& id);
  sample_context context_for(const std::string& device_id);
  void record(const op_package& op, const std::string& tiling_source,
              const std::string& kernel_source, const eval_result& r);
  // Builds, installs, runs and checks the candidate, then times it: `finalist` measures it alone
  // with the finalist sample count (remeasure), else measure() compares it with the best.
  eval_result evaluate_candidate(const op_package& op, const std::string& tiling_source,
                                 const std::string& kernel_source, const eval_options& options,
                                 bool finalist);
  void measure(const op_package& op, measured_candidate& candidate, const std::string& npu,
               const eval_options& options, bool finalist, eval_result& r);

  cann_device_options options_;
  std::unique_ptr<reference_runner> reference_;

  std::mutex npu_mutex_;
  std::condition_variable npu_freed_;
  std::vector<bool> npu_busy_;  // guarded by npu_mutex_, indexed like device_ids

  mutable std::mutex state_mutex_;
  std::map<std::string, std::shared_ptr<op_state>> ops_;  // guarded by state_mutex_
  std::map<std::string, std::string> versions_;           // guarded by state_mutex_
};

}  // namespace aopt::npu
