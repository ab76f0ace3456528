// device.kind = "cascade": the simulator as a cheap first filter in front of the NPU.
//
// A candidate runs on the simulator first (compile, numerics, race detection, simulated
// latency). One that fails there stops there. One that passes goes to the hardware device only
// when its simulated latency is at most (1 + margin) x the simulated latency of the operator's
// current best (the candidate that last became best on hardware); otherwise its result is the
// simulator's, with measurement.verdict = "filtered", which never becomes the best
// (improves_on). The operator's first candidate always goes to hardware. counts() says how
// many candidates each stage stopped; with a measurement_log, every hardware measurement is
// appended together with the simulator's prediction and profile (the input of `aopt calibrate`).
//
// Thread-safety: evaluate() may run on several threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "npu/device.hpp"
#include "npu/measurement_log.hpp"

namespace aopt::npu {

struct cascade_counts {
  uint64_t evaluated = 0;
  uint64_t simulator_failed = 0;  // stopped by the simulator (compile, numerics, races, ...)
  uint64_t filtered = 0;          // passed, but predicted slower than the best by > margin
  uint64_t hardware = 0;          // sent to the NPU
  uint64_t hardware_failed = 0;   // of those, failed there
};

nlohmann::json to_json(const cascade_counts& c);
// Errors: invalid_argument naming a missing or mistyped key.
result<cascade_counts> cascade_counts_from_json(const nlohmann::json& j);
// Stage by stage sums (the counts of a resumed campaign's runs).
cascade_counts& operator+=(cascade_counts& a, const cascade_counts& b);

class cascade_device : public device {
 public:
  // `log` may be null (no measurements file).
  cascade_device(std::shared_ptr<device> simulator, std::shared_ptr<device> hardware, double margin,
                 std::shared_ptr<measurement_log> log);

  eval_result evaluate(const op_package& op, const std::string& tiling_source,
                       const std::string& kernel_source, const eval_options& options) override;

  // "cascade:<hardware id>+<simulator id>"
  std::string profile_id() const override;
  // The simulator's: the hardware's verdicts are the judge's too, its latencies measured.
  std::string checker_id() const override;

  // The hardware device's re-measurement (finalists have passed the simulator already).
  std::optional<eval_result> remeasure(const op_package& op, const std::string& tiling_source,
                                       const std::string& kernel_source,
                                       const eval_options& options) override;

  cascade_counts counts() const;
  device& hardware() { return *hardware_; }

 private:
  std::shared_ptr<device> simulator_;
  std::shared_ptr<device> hardware_;
  double margin_;
  std::shared_ptr<measurement_log> log_;

  mutable std::mutex mutex_;
  cascade_counts counts_;                   // guarded by mutex_
  std::map<std::string, double> best_sim_;  // operator -> simulated us of its best; mutex_
};

}  // namespace aopt::npu
