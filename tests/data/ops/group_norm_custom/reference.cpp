#include <cmath>

#include "aopt/reference.h"

// GroupNorm of x [N, C, HW]: each group of C / G channels normalised by its own mean and
// variance (biased), then y = xhat * gamma[c] + beta[c].
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& attrs) {
  const int64_t groups = static_cast<int64_t>(attrs.number("num_groups"));
  const double eps = attrs.number_or("epsilon", 1e-5);
  const int64_t n = in[0].dim(0), c = in[0].dim(1), hw = in[0].dim(2);
  const int64_t cg = c / groups, len = cg * hw;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (b * c + g * cg) * hw;
      double mean = 0.0, var = 0.0;
      for (int64_t i = 0; i < len; ++i) mean += in[0].data[base + i];
      mean /= static_cast<double>(len);
      for (int64_t i = 0; i < len; ++i) var += (in[0].data[base + i] - mean) * (in[0].data[base + i] - mean);
      const double rstd = 1.0 / std::sqrt(var / static_cast<double>(len) + eps);
      for (int64_t i = 0; i < len; ++i) {
        const int64_t ch = g * cg + i / hw;
        out[0].data[base + i] = (in[0].data[base + i] - mean) * rstd * in[1].data[ch] + in[2].data[ch];
      }
    }
  }
}
