#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const double lr = attrs.number("lr");
    const double beta1 = attrs.number("beta1");
    const double beta2 = attrs.number("beta2");
    const double epsilon = attrs.number("epsilon");
    const double step = attrs.number("step");
    const double biasCorrection1 = 1.0 - std::pow(beta1, step);
    const double biasCorrection2 = 1.0 - std::pow(beta2, step);
    for (size_t g = 0; g < 2; ++g) {
        const auto& param = in[4 * g].data;
        const auto& grad = in[4 * g + 1].data;
        const auto& expAvg = in[4 * g + 2].data;
        const auto& expAvgSq = in[4 * g + 3].data;
        for (int64_t i = 0; i < in[4 * g].numel(); ++i) {
            const double m = beta1 * expAvg[i] + (1.0 - beta1) * grad[i];
            const double v = beta2 * expAvgSq[i] + (1.0 - beta2) * grad[i] * grad[i];
            const double denom = std::sqrt(v / biasCorrection2) + epsilon;
            out[3 * g].data[i] = param[i] - lr / biasCorrection1 * m / denom;
            out[3 * g + 1].data[i] = m;
            out[3 * g + 2].data[i] = v;
        }
    }
}
