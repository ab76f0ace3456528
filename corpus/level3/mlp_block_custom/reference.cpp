#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& x = in[0];
    const auto& bias = in[1].data;
    const auto& mask = in[2].data;
    const auto& residual = in[3].data;
    const double keepScale = attrs.number("keep_scale");
    const int64_t cols = x.last_dim();
    for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = x.data[i] + bias[i % cols];
        const double gelu = 0.5 * v * (1.0 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
        out[0].data[i] = residual[i] + gelu * mask[i] * keepScale;
    }
}
