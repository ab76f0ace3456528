#include "aopt/reference.h"

// c[i] = a[i] x b[i] for a [B, M, K] and b [B, K, N].
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const aopt_ref::tensor& a = in[0];
    const aopt_ref::tensor& b = in[1];
    const int64_t batch = a.dim(0);
    const int64_t m = a.dim(1);
    const int64_t k = a.dim(2);
    const int64_t n = b.dim(2);
    std::vector<double> row(n);
    for (int64_t p = 0; p < batch; ++p) {
        const double* ap = &a.data[p * m * k];
        const double* bp = &b.data[p * k * n];
        for (int64_t i = 0; i < m; ++i) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int64_t kk = 0; kk < k; ++kk) {
                const double x = ap[i * k + kk];
                for (int64_t j = 0; j < n; ++j) row[j] += x * bp[kk * n + j];
            }
            for (int64_t j = 0; j < n; ++j) out[0].data[(p * m + i) * n + j] = row[j];
        }
    }
}
