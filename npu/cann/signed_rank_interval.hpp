// A distribution-free confidence interval for the centre (median) of paired differences: the
// Hodges-Lehmann estimate (median of the Walsh averages (x_i + x_j) / 2, i <= j) and the
// interval from inverting the Wilcoxon signed-rank test, with the exact null distribution of
// the statistic (computed by dynamic programming, so no normal approximation at small n).
//
// Why this test for accepting a faster candidate (measurement_protocol): hardware timings have
// outliers (interrupts, clock changes) and skew, so a t interval's normality assumption is
// wrong exactly when it matters; the sign-test interval assumes nothing but needs ~1.5x the
// samples for the same width; a bootstrap percentile interval is random and under-covers at
// the 8-30 pairs a time budget allows. The signed-rank interval assumes only that the paired
// differences are symmetric about their centre, which interleaved ABAB pairs of log-ratios
// make plausible (slow drift hits both sides of a pair alike), is deterministic, exact in
// coverage, and ~95 % as efficient as the t interval under normal noise.
//
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <vector>

namespace aopt::npu {

struct location_interval {
  double estimate = 0;  // Hodges-Lehmann
  double low = 0;
  double high = 0;
  double coverage = 0;  // the exact coverage achieved (>= the confidence asked for when n allows)
};

// Largest n accepted (the exact distribution costs O(n^3) time).
constexpr size_t max_signed_rank_samples = 400;

// REQUIRES: 1 <= x.size() <= max_signed_rank_samples, 0 < confidence < 1. When n is too small for
// the confidence asked (n < 6 at 95 %), the interval is [min, max] of the Walsh averages and
// `coverage` says what it achieves.
location_interval signed_rank_interval(const std::vector<double>& x, double confidence);

}  // namespace aopt::npu
