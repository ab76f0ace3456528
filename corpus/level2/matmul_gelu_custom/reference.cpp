#include <cmath>
#include <vector>

#include "aopt/reference.h"

// c = gelu(a x b + bias) (the tanh approximation) for a [M, K], b [K, N] and a [N] bias.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&)
{
    const aopt_ref::tensor& a = in[0];
    const aopt_ref::tensor& b = in[1];
    const auto& bias = in[2].data;
    const int64_t m = a.dim(0);
    const int64_t k = a.dim(1);
    const int64_t n = b.dim(1);
    std::vector<double> row(n);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) row[j] = bias[j];
        for (int64_t kk = 0; kk < k; ++kk) {
            const double x = a.data[i * k + kk];
            for (int64_t j = 0; j < n; ++j) row[j] += x * b.data[kk * n + j];
        }
        for (int64_t j = 0; j < n; ++j) {
            const double v = row[j];
            out[0].data[i * n + j] = 0.5 * v * (1.0 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
        }
    }
}
