#include <algorithm>
#include <cmath>
#include <vector>

#include "aopt/reference.h"

// out = softmax(q k^T / sqrt(d)) v for one head: q, k, v [s, d]. The probabilities are rounded to
// half before the second product, as the kernel feeds them to the cube.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&)
{
    const aopt_ref::tensor& q = in[0];
    const aopt_ref::tensor& k = in[1];
    const aopt_ref::tensor& v = in[2];
    const int64_t s = q.dim(0);
    const int64_t d = q.dim(1);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    std::vector<double> p(s);
    for (int64_t i = 0; i < s; ++i) {
        double peak = -1e300;
        for (int64_t j = 0; j < s; ++j) {
            double dot = 0;
            for (int64_t c = 0; c < d; ++c) dot += q.data[i * d + c] * k.data[j * d + c];
            p[j] = dot * scale;
            peak = std::max(peak, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < s; ++j) {
            p[j] = std::exp(p[j] - peak);
            sum += p[j];
        }
        for (int64_t c = 0; c < d; ++c) out[0].data[i * d + c] = 0;
        for (int64_t j = 0; j < s; ++j) {
            const double w = static_cast<double>(static_cast<_Float16>(p[j] / sum));
            for (int64_t c = 0; c < d; ++c) out[0].data[i * d + c] += w * v.data[j * d + c];
        }
    }
}
