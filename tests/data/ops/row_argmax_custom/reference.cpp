#include "aopt/reference.h"

// The maximum of each row and the first index where it occurs.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& /*attrs*/) {
  const int64_t cols = in[0].last_dim();
  for (int64_t r = 0; r < in[0].rows(); ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < cols; ++c)
      if (in[0].data[r * cols + c] > in[0].data[r * cols + best]) best = c;
    out[0].data[r] = in[0].data[r * cols + best];
    out[1].data[r] = static_cast<double>(best);
  }
}
