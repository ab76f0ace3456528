#include "aopt/reference.h"

// c_out = c + a^T x b for a [K, M] (A stored transposed), b [K, N] and c [M, N].
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&)
{
    const aopt_ref::tensor& a = in[0];
    const aopt_ref::tensor& b = in[1];
    const aopt_ref::tensor& c = in[2];
    const int64_t k = a.dim(0);
    const int64_t m = a.dim(1);
    const int64_t n = b.dim(1);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t kk = 0; kk < k; ++kk) sum += a.data[kk * m + i] * b.data[kk * n + j];
            out[0].data[i * n + j] = c.data[i * n + j] + sum;
        }
    }
}
