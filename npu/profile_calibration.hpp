// `aopt calibrate`: fits the simulator profile's "assumed" constants to hardware latencies.
//
// Model. For every constant the timing model charges per event (launch, DMA start-up and burst
// overhead, the short-burst penalty, vector start-up and the cycles per repeat of each op class,
// issue, scalar UB/GM access), the simulator records with each result how its latency responds
// to it: eval_profile::latency_sensitivity, d latency / d constant through the timing model
// itself (npu/sim/runtime/timing_sensitivity.hpp). Around the profile's values theta0:
//   predicted(theta) = sim_latency + sum_k sensitivity_k (theta_k - theta0_k)
// so least squares over the measurements (in relative steps delta_k = theta_k / theta0_k - 1,
// with a tiny ridge term) gives the fit. Only constants whose comment in the profile file starts
// with "assumed" are fitted. An assumed constant is reported as not fitted, with the reason, when
//   * the timing model uses it as a threshold, an integer or a rate (no useful derivative:
//     dma_efficient_burst_bytes, pipe_queue_depth, ...; sim::why_not_linear),
//   * no measured candidate exercises it (its sensitivity is 0 in every record), or
//   * over these measurements its effect is (almost) a linear combination of the effects of
//     constants fitted before it: end-to-end latencies cannot tell them apart,
//   * its effect is lost in the measurement noise (the fit's standard error exceeds 2 % of its
//     value; the others are fitted again without it), or
//   * the fit puts it where the profile allows no value (a negative cost, ...).
// The linearisation holds while the critical path stays the same; the fit is a model of the
// chip to be checked by the rank correlation it reports, not exact constants.
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

struct fitted_constant {
  std::string name;
  double before = 0;
  double after = 0;
};

struct unfitted_constant {
  std::string name;
  std::string reason;
};

struct calibration_result {
  std::vector<fitted_constant> fitted;
  std::vector<unfitted_constant> assumed_not_fitted;  // assumed, but not identifiable (why)
  std::vector<std::string> notes;                     // values kept, records skipped, ...
  size_t used = 0;                                    // measurements in the fit
  double spearman_before = 0;
  double spearman_after = 0;
  sim::hw_profile profile;  // with the fitted values
};

// Spearman's rank correlation (average ranks for ties); 0 when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

// The keys of `profile_file` whose trailing comment starts with "assumed".
result<std::vector<std::string>> assumed_constants(const std::filesystem::path& profile_file);

// Fits `profile`'s constants in `assumed` (those identifiable) to the records that carry a
// simulator side with latency sensitivities. Errors: invalid_argument when no assumed constant
// is identifiable or fewer than (fitted constants + 2) records are usable.
result<calibration_result> calibrate(const sim::hw_profile& profile,
                                     const std::vector<std::string>& assumed,
                                     const std::vector<measurement_record>& records);

// The text of `profile_file` with each fitted constant's value replaced, its comment saying it
// was fitted (and from what), and `name` set to `new_name`.
result<std::string> write_fitted_profile(const std::filesystem::path& profile_file,
                                         const calibration_result& fit, const std::string& new_name,
                                         const std::string& source);

}  // namespace aopt::npu
