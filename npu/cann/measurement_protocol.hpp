// How aopt measures latency on real hardware, as a plain class that knows nothing of CANN: a
// `measurement_target` runs one timed launch, a flush function empties the L2 between launches,
// a clock bounds the time spent. The CANN device drives it; tests drive it with synthetic
// noisy targets.
//
//   measure(t)       untimed warm-up launches, then samples (an L2 flush before each) until
//                    max_samples, or min_samples and the time budget are reached; the median,
//                    quartiles/IQR and n. finalist = true multiplies both counts and the budget
//                    by finalist_factor (the final ranking deserves more samples).
//   compare(c, b)    candidate c against the current best b in interleaved pairs c b c b ...
//                    (so slow drift hits both alike); speedup_i = b_i / c_i; the Hodges-Lehmann
//                    estimate of the log-speedup with its signed-rank confidence interval
//                    (signed_rank_interval.hpp says why that interval); accepted only when the
//                    interval's lower bound exceeds 1 + epsilon.
//   check_baseline   measures the baseline; the first call fixes the reference median, later
//                    calls report the ratio to it and raise the drift alarm beyond
//                    drift_threshold. baseline_due() says when baseline_every comparisons have
//                    passed since the last check.
//
// Thread-safety: none; the owner serialises calls (one device, one measurement at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::npu {

// Where and under what conditions a sample was taken: recorded with every sample.
struct sample_context {
  std::string device_id;
  std::string cann_version;
  std::string driver_version;
  double clock_mhz = 0;  // the AI core clock the profiler reported (0: unknown)
};

struct latency_sample {
  double latency_us = 0;
  sample_context context;
};

// One candidate on one device: each call launches it once and times it.
class measurement_target {
 public:
  virtual ~measurement_target() = default;
  virtual result<latency_sample> sample() = 0;
};

struct protocol_settings {
  uint32_t warmup_runs = 2;
  uint32_t min_samples = 10;
  uint32_t max_samples = 30;
  double time_budget_s = 30;  // per measure() or compare(), warm-up included
  uint32_t finalist_factor = 3;
  // A candidate must be faster than the best by more than this fraction, with the confidence
  // below. 0.03: at the 3-5 % run-to-run noise typical of µs-scale kernels, a smaller true gain
  // cannot be told from noise with ~20 pairs, and accepting noise makes the search chase it.
  double epsilon = 0.03;
  double confidence = 0.95;
  uint32_t baseline_every = 10;  // comparisons between two baseline re-measurements
  double drift_threshold = 0.05;
};

// Validates ranges (min <= max <= max_signed_rank_samples, 0 < confidence < 1, ...).
status validate(const protocol_settings& s);

struct latency_summary {
  double median_us = 0;
  double q1_us = 0;  // quartiles by linear interpolation between order statistics
  double q3_us = 0;
  double iqr_us = 0;
  double min_us = 0;
  double max_us = 0;
  uint32_t n = 0;
  std::vector<latency_sample> samples;
};

// REQUIRES: !samples.empty().
latency_summary summarize(std::vector<latency_sample> samples);

struct speedup_estimate {
  double speedup = 0;  // > 1: the candidate is faster
  double ci_low = 0;
  double ci_high = 0;
  double confidence = 0;  // the interval's exact coverage
  uint32_t pairs = 0;
  bool accepted = false;
  latency_summary candidate;
  latency_summary best;
};

struct drift_check {
  double reference_us = 0;
  double current_us = 0;
  double ratio = 1;  // current / reference
  bool alarm = false;
  latency_summary summary;
};

class measurement_protocol {
 public:
  using flush_function = std::function<status()>;
  using clock_function = std::function<double()>;  // seconds, monotonic

  // `flush` runs before every timed sample; `clock` defaults to std::chrono::steady_clock.
  measurement_protocol(protocol_settings settings, flush_function flush, clock_function clock = {});

  result<latency_summary> measure(measurement_target& target, bool finalist = false);
  result<speedup_estimate> compare(measurement_target& candidate, measurement_target& best);

  bool baseline_due() const;
  result<drift_check> check_baseline(measurement_target& baseline);

  const protocol_settings& settings() const { return settings_; }
  const std::optional<drift_check>& last_drift() const { return last_drift_; }

 private:
  status warm_up(measurement_target& target);
  result<latency_sample> timed_sample(measurement_target& target);

  protocol_settings settings_;
  flush_function flush_;
  clock_function clock_;
  uint32_t comparisons_since_baseline_ = 0;
  std::optional<double> baseline_reference_us_;
  std::optional<drift_check> last_drift_;
};

}  // namespace aopt::npu
