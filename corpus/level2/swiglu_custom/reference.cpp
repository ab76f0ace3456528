#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const aopt_ref::tensor& x = in[0];
    const int64_t halfCols = x.last_dim() / 2;
    for (int64_t r = 0; r < x.rows(); ++r) {
        for (int64_t c = 0; c < halfCols; ++c) {
            const double gate = x.data[r * 2 * halfCols + c];
            const double up = x.data[r * 2 * halfCols + halfCols + c];
            out[0].data[r * halfCols + c] = gate / (1.0 + std::exp(-gate)) * up;
        }
    }
}
