#include "npu/cann/signed_rank_interval.hpp"

#include <algorithm>

namespace aopt::npu {

namespace {

// P(T <= t) for t = 0..n(n+1)/2, T the signed-rank statistic of n samples under the null
// (each rank's sign a fair coin): the distribution of a sum of a random subset of {1..n}.
std::vector<double> signed_rank_cdf(size_t n) {
  const size_t max_sum = n * (n + 1) / 2;
  std::vector<double> p(max_sum + 1, 0.0);
  p[0] = 1.0;
  for (size_t k = 1; k <= n; ++k) {
    // Adding rank k: half the mass shifts by k.
    for (size_t t = max_sum; t + 1 > 0; --t) {
      const double with = t >= k ? p[t - k] : 0.0;
      p[t] = 0.5 * p[t] + 0.5 * with;
      if (t == 0) break;
    }
  }
  for (size_t t = 1; t <= max_sum; ++t) p[t] += p[t - 1];
  return p;
}

}  // namespace

location_interval signed_rank_interval(const std::vector<double>& x, double confidence) {
  const size_t n = x.size();
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i; j < n; ++j) walsh.push_back((x[i] + x[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());
  const size_t m = walsh.size();
  location_interval out;
  out.estimate = m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;

  // The interval [W_(c+1), W_(m-c)] (1-based) covers the centre with probability
  // 1 - 2 P(T <= c): take the largest c with P(T <= c) <= (1 - confidence) / 2, or c = 0
  // (the extremes) when even P(T = 0) = 2^-n is larger.
  const std::vector<double> cdf = signed_rank_cdf(n);
  const double tail = (1 - confidence) / 2;
  size_t c = 0;
  while (c + 1 < cdf.size() && cdf[c + 1] <= tail) ++c;
  out.low = walsh[c];
  out.high = walsh[m - 1 - c];
  out.coverage = 1 - 2 * cdf[c];
  return out;
}

}  // namespace aopt::npu
