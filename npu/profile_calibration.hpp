// `aopt calibrate`: fits the simulator profile's "assumed" constants to hardware latencies.
//
// Model. The timing model charges each of these constants per event on the critical core:
//   launch_base_us             once per launch                       (feature: 1)
//   dma_burst_overhead_cycles  per DMA burst                          (bursts / block_dim / f)
//   vec_startup_cycles         per vector instruction                 (vector instrs / block_dim /
//   f) issue_cycles               per instruction issued by the scalar   (instructions / block_dim
//   / f)
// with f = clock in cycles per microsecond, and per-core counts approximated by the totals the
// simulator's profile records (eval_profile) divided by blockDim. Holding everything else of
// the simulated latency fixed, the latency is linear in these constants:
//   predicted(theta) = sim_latency + sum_k (theta_k - theta0_k) x_k
// so least squares over the measurements (relative steps delta_k = theta_k / theta0_k - 1, with a
// tiny ridge term for collinear features) gives the fit. Only constants whose comment in the
// profile file starts with "assumed" are fitted, and only those with a feature above; other
// assumed ones (per-DataCopy start-up, queue depth, per-op-class repeat costs, short-burst
// thresholds) are reported as not fittable from what a measurement records. The linearisation
// ignores overlap between pipes (a cost hidden behind another pipe still counts), so the fit is
// an approximation to be checked by the rank correlation it reports, not exact constants.
//
// Thread-safety: free functions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "npu/measurement_log.hpp"
#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::npu {

// The constants calibration knows a feature for, in a fixed order.
const std::vector<std::string>& calibratable_constants();

// The feature of `constant` for one simulated candidate (see the model above).
double calibration_feature(const std::string& constant, const eval_profile& p,
                           const sim::hw_profile& hw);

struct fitted_constant {
  std::string name;
  double before = 0;
  double after = 0;
};

struct calibration_result {
  std::vector<fitted_constant> fitted;
  std::vector<std::string> assumed_not_fitted;  // assumed, but no feature or no variation
  std::vector<std::string> notes;               // clamped values, dropped features, ...
  size_t used = 0;                              // measurements in the fit
  double spearman_before = 0;
  double spearman_after = 0;
  sim::hw_profile profile;  // with the fitted values
};

// Spearman's rank correlation (average ranks for ties); 0 when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

// The keys of `profile_file` whose trailing comment starts with "assumed".
result<std::vector<std::string>> assumed_constants(const std::filesystem::path& profile_file);

// Fits `profile`'s constants in `assumed` (those calibratable) to the records that carry a
// simulator side. Errors: invalid_argument when fewer than (fitted constants + 2) records do.
result<calibration_result> calibrate(const sim::hw_profile& profile,
                                     const std::vector<std::string>& assumed,
                                     const std::vector<measurement_record>& records);

// The text of `profile_file` with each fitted constant's value replaced, its comment saying it
// was fitted (and from what), and `name` set to `new_name`.
result<std::string> write_fitted_profile(const std::filesystem::path& profile_file,
                                         const calibration_result& fit, const std::string& new_name,
                                         const std::string& source);

}  // namespace aopt::npu
