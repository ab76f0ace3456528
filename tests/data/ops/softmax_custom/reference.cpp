#include <algorithm>
#include <cmath>

#include "aopt/reference.h"

// y = exp(x - max) / sum(exp(x - max)) over the last axis, in double.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& /*attrs*/) {
  const int64_t cols = in[0].last_dim();
  for (int64_t r = 0; r < in[0].rows(); ++r) {
    const double* x = in[0].data.data() + r * cols;
    const double mx = *std::max_element(x, x + cols);
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[c] - mx);
    for (int64_t c = 0; c < cols; ++c) out[0].data[r * cols + c] = std::exp(x[c] - mx) / sum;
  }
}
