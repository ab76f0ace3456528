#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& x = in[0];
    const auto& mean = in[1].data;
    const auto& variance = in[2].data;
    const auto& gamma = in[3].data;
    const auto& beta = in[4].data;
    const double epsilon = attrs.number("epsilon");
    const int64_t channels = x.last_dim();
    for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = i % channels;
        out[0].data[i] = (x.data[i] - mean[c]) * gamma[c] / std::sqrt(variance[c] + epsilon) + beta[c];
    }
}
