#include "npu/cann/measurement_protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "npu/cann/signed_rank_interval.hpp"

namespace aopt::npu {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

status validate(const protocol_settings& s) {
  if (s.min_samples < 1) return invalid_argument("min_samples: must be >= 1");
  if (s.max_samples < s.min_samples) {
    return invalid_argument(fmt::format("max_samples: must be >= min_samples ({}), got {}",
                                        s.min_samples, s.max_samples));
  }
  if (static_cast<uint64_t>(s.max_samples) * std::max<uint32_t>(1, s.finalist_factor) >
      max_signed_rank_samples) {
    return invalid_argument(
        fmt::format("max_samples * finalist_factor: must be <= {}", max_signed_rank_samples));
  }
  if (s.finalist_factor < 1) return invalid_argument("finalist_factor: must be >= 1");
  if (!(s.time_budget_s > 0)) return invalid_argument("time_budget_s: must be > 0");
  if (!(s.epsilon >= 0)) return invalid_argument("epsilon: must be >= 0");
  if (!(s.confidence > 0 && s.confidence < 1)) {
    return invalid_argument("confidence: must be > 0 and < 1");
  }
  if (s.baseline_every < 1) return invalid_argument("baseline_every: must be >= 1");
  if (!(s.drift_threshold > 0)) return invalid_argument("drift_threshold: must be > 0");
  return {};
}

latency_summary summarize(std::vector<latency_sample> samples) {
  latency_summary s;
  std::vector<double> v;
  v.reserve(samples.size());
  for (const auto& x : samples) v.push_back(x.latency_us);
  std::sort(v.begin(), v.end());
  s.n = static_cast<uint32_t>(v.size());
  s.median_us = quantile(v, 0.5);
  s.q1_us = quantile(v, 0.25);
  s.q3_us = quantile(v, 0.75);
  s.iqr_us = s.q3_us - s.q1_us;
  s.min_us = v.front();
  s.max_us = v.back();
  s.samples = std::move(samples);
  return s;
}

measurement_protocol::measurement_protocol(protocol_settings settings, flush_function flush,
                                           clock_function clock)
    : settings_(settings), flush_(std::move(flush)), clock_(std::move(clock)) {
  if (!clock_) clock_ = steady_seconds;
}

status measurement_protocol::warm_up(measurement_target& target) {
  for (uint32_t i = 0; i < settings_.warmup_runs; ++i) {
    auto s = target.sample();
    if (!s.ok()) return s.error().with_context("warm-up");
  }
  return {};
}

result<latency_sample> measurement_protocol::timed_sample(measurement_target& target) {
  if (flush_) {
    status flushed = flush_();
    if (!flushed.ok()) return flushed.with_context("L2 flush");
  }
  auto s = target.sample();
  if (s.ok() && !(s->latency_us > 0 && std::isfinite(s->latency_us))) {
    return internal_error(fmt::format("a sample of {} us is not a latency", s->latency_us));
  }
  return s;
}

result<latency_summary> measurement_protocol::measure(measurement_target& target, bool finalist) {
  const uint32_t factor = finalist ? settings_.finalist_factor : 1;
  const uint32_t min_n = settings_.min_samples * factor;
  const uint32_t max_n = settings_.max_samples * factor;
  const double budget = settings_.time_budget_s * factor;
  const double start = clock_();
  AOPT_RETURN_IF_ERROR(warm_up(target));
  std::vector<latency_sample> samples;
  while (samples.size() < max_n && (samples.size() < min_n || clock_() - start < budget)) {
    auto s = timed_sample(target);
    if (!s.ok()) return s.error();
    samples.push_back(std::move(*s));
  }
  return summarize(std::move(samples));
}

result<speedup_estimate> measurement_protocol::compare(measurement_target& candidate,
                                                       measurement_target& best) {
  const double start = clock_();
  AOPT_RETURN_IF_ERROR(warm_up(candidate));
  AOPT_RETURN_IF_ERROR(warm_up(best));
  std::vector<latency_sample> a, b;
  std::vector<double> log_speedups;
  while (
      log_speedups.size() < settings_.max_samples &&
      (log_speedups.size() < settings_.min_samples || clock_() - start < settings_.time_budget_s)) {
    auto x = timed_sample(candidate);
    if (!x.ok()) return x.error().with_context("candidate");
    auto y = timed_sample(best);
    if (!y.ok()) return y.error().with_context("current best");
    // Logs make the interval symmetric in "faster" and "slower" and turn the multiplicative
    // noise of timings into additive noise.
    log_speedups.push_back(std::log(y->latency_us / x->latency_us));
    a.push_back(std::move(*x));
    b.push_back(std::move(*y));
  }
  const location_interval ci = signed_rank_interval(log_speedups, settings_.confidence);
  speedup_estimate e;
  e.speedup = std::exp(ci.estimate);
  e.ci_low = std::exp(ci.low);
  e.ci_high = std::exp(ci.high);
  e.confidence = ci.coverage;
  e.pairs = static_cast<uint32_t>(log_speedups.size());
  e.accepted = e.ci_low > 1 + settings_.epsilon;
  e.candidate = summarize(std::move(a));
  e.best = summarize(std::move(b));
  ++comparisons_since_baseline_;
  return e;
}

bool measurement_protocol::baseline_due() const {
  return !baseline_reference_us_ || comparisons_since_baseline_ >= settings_.baseline_every;
}

result<drift_check> measurement_protocol::check_baseline(measurement_target& baseline) {
  auto m = measure(baseline);
  if (!m.ok()) return m.error().with_context("baseline");
  comparisons_since_baseline_ = 0;
  drift_check d;
  d.current_us = m->median_us;
  if (!baseline_reference_us_) baseline_reference_us_ = d.current_us;
  d.reference_us = *baseline_reference_us_;
  d.ratio = d.current_us / d.reference_us;
  d.alarm = std::abs(d.ratio - 1) > settings_.drift_threshold;
  d.summary = std::move(*m);
  last_drift_ = d;
  return d;
}

}  // namespace aopt::npu
