#include "aopt/reference.h"

// y[r, c] = x[r, c] * scale[r] + bias[c].
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& /*attrs*/) {
  const int64_t cols = in[0].last_dim();
  for (int64_t r = 0; r < in[0].rows(); ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[0].data[r * cols + c] = in[0].data[r * cols + c] * in[1].data[r] + in[2].data[c];
}
