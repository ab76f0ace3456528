// The Device interface: compile, run, check and time one candidate (T, K) of an operator.
//
// Implementations: sim_device (npu/sim/device, the AscendC simulator) and cann_device
// (npu/cann, real hardware through CANN's tools). Thread-safety: evaluate() may be called
// from several threads at once; each call works in its own scratch directory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "npu/op_package.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::npu {

struct eval_options {
  uint32_t input_sets = 3;      // correctness is checked on this many seeded input sets
  uint32_t repetitions = 1;     // timed runs (the simulator is deterministic: 1 suffices)
  double timeout_seconds = 60;  // wall clock for one run of the candidate
  double compile_timeout_seconds = 120;
  bool detect_races = true;
  double noise_stddev_fraction = 0;  // seeded noise injection, to test the measurement protocol
  uint64_t noise_seed = 0;
  // Build the candidate from scratch: no compiled object of it is taken from, or left in, a
  // cache shared with other evaluations. The confirmation of an accepted improvement (issue 17)
  // runs this way, so that nothing an earlier candidate left behind can decide it.
  bool cold = false;
};

class device {
 public:
  virtual ~device() = default;

  // Evaluates the package's operator with tiling program `tiling_source` (replacing
  // op_host/<name>.cpp) and kernel `kernel_source` (replacing op_kernel/<name>.cpp).
  // Never throws; every failure is an eval_result status with a message.
  virtual eval_result evaluate(const op_package& op, const std::string& tiling_source,
                               const std::string& kernel_source, const eval_options& options) = 0;

  // Identifies the hardware profile, part of every evaluation cache key ("sim:ascend910b4").
  virtual std::string profile_id() const = 0;

  // Identifies what decides this device's verdicts and latencies beyond profile_id() (the
  // simulator: its judge, runtime, shim headers and profile constants; checker_identity.hpp),
  // also part of every evaluation cache key: a result cached under another checker is never
  // served. Empty: nothing beyond the profile.
  virtual std::string checker_id() const { return {}; }

  // The end-of-campaign re-measurement of a finalist: the candidate is evaluated again and
  // measured with more samples (the device's finalist count), neither compared with nor
  // becoming the operator's best. nullopt when re-measuring cannot change the latency (the
  // simulator is deterministic), so there is nothing to do.
  virtual std::optional<eval_result> remeasure(const op_package& /*op*/,
                                               const std::string& /*tiling_source*/,
                                               const std::string& /*kernel_source*/,
                                               const eval_options& /*options*/) {
    return std::nullopt;
  }
};

}  // namespace aopt::npu
