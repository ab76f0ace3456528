#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& /*attrs*/) {
  const int64_t rows = 8;
  const int64_t cols = in[0].numel() / rows;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      out[0].data[r * cols + c] =
          2 * in[0].data[r * cols + c] + 2 * in[0].data[((r + 1) % rows) * cols + c];
    }
  }
}
