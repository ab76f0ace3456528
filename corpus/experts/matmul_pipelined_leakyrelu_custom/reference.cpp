#include "aopt/reference.h"

// c = leaky_relu(a x b + bias, alpha) for a [M, K], b [K, N] and a [N] bias.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& a = in[0];
    const aopt_ref::tensor& b = in[1];
    const auto& bias = in[2].data;
    const double alpha = static_cast<float>(attrs.number("alpha"));
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
        for (int64_t j = 0; j < n; ++j) out[0].data[i * n + j] = row[j] >= 0 ? row[j] : row[j] * alpha;
    }
}
