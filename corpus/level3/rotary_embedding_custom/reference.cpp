#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const aopt_ref::tensor& x = in[0];
    const auto& cos = in[1].data;
    const auto& sin = in[2].data;
    const int64_t tokens = x.dim(0);
    const int64_t heads = x.dim(1);
    const int64_t headDim = x.dim(2);
    const int64_t half = headDim / 2;
    for (int64_t t = 0; t < tokens; ++t) {
        for (int64_t h = 0; h < heads; ++h) {
            const int64_t base = (t * heads + h) * headDim;
            for (int64_t d = 0; d < half; ++d) {
                const double x1 = x.data[base + d];
                const double x2 = x.data[base + half + d];
                out[0].data[base + d] = x1 * cos[t * headDim + d] - x2 * sin[t * headDim + d];
                out[0].data[base + half + d] = x2 * cos[t * headDim + half + d] + x1 * sin[t * headDim + half + d];
            }
        }
    }
}
