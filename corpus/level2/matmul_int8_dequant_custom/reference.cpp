#include "aopt/reference.h"

// c = (a x w^T) * scale for int8 a [M, K] and an int8 weight w [N, K] (one row per output
// column), accumulated exactly in integers and dequantized by one scale.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& a = in[0];
    const aopt_ref::tensor& w = in[1];
    const double scale = static_cast<float>(attrs.number("scale"));
    const int64_t m = a.dim(0);
    const int64_t k = a.dim(1);
    const int64_t n = w.dim(0);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            int64_t acc = 0;
            for (int64_t kk = 0; kk < k; ++kk)
                acc += static_cast<int64_t>(a.data[i * k + kk]) * static_cast<int64_t>(w.data[j * k + kk]);
            out[0].data[i * n + j] = static_cast<double>(acc) * scale;
        }
    }
}
