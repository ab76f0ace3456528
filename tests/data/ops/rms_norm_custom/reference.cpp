#include <cmath>

#include "aopt/reference.h"

// y = x / sqrt(mean(x^2) + epsilon) * gamma over the last axis, in double.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& attrs) {
  const double eps = attrs.number_or("epsilon", 1e-6);
  const int64_t cols = in[0].last_dim();
  for (int64_t r = 0; r < in[0].rows(); ++r) {
    double ss = 0.0;
    for (int64_t c = 0; c < cols; ++c) ss += in[0].data[r * cols + c] * in[0].data[r * cols + c];
    const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(cols) + eps);
    for (int64_t c = 0; c < cols; ++c)
      out[0].data[r * cols + c] = in[0].data[r * cols + c] * rstd * in[1].data[c];
  }
}
