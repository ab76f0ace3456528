#include <cmath>

#include "aopt/reference.h"

// x = sqrt(x * x + y * y), elementwise.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& /*attrs*/) {
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    out[0].data[i] = std::sqrt(in[0].data[i] * in[0].data[i] + in[1].data[i] * in[1].data[i]);
  }
}
