#include "aopt/reference.h"

// c = a x b for a [M, K] and b [K, N].
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const aopt_ref::tensor& a = in[0];
    const aopt_ref::tensor& b = in[1];
    const int64_t m = a.dim(0);
    const int64_t k = a.dim(1);
    const int64_t n = b.dim(1);
    std::vector<double> row(n);
    for (int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t kk = 0; kk < k; ++kk) {
            const double x = a.data[i * k + kk];
            const double* brow = &b.data[kk * n];
            for (int64_t j = 0; j < n; ++j) row[j] += x * brow[j];
        }
        for (int64_t j = 0; j < n; ++j) out[0].data[i * n + j] = row[j];
    }
}
