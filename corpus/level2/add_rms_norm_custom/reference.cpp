#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& x1 = in[0];
    const auto& x2 = in[1].data;
    const auto& gamma = in[2].data;
    const double epsilon = attrs.number("epsilon");
    const int64_t cols = x1.last_dim();
    for (int64_t r = 0; r < x1.rows(); ++r) {
        double sum = 0;
        for (int64_t c = 0; c < cols; ++c) {
            const double v = x1.data[r * cols + c] + x2[r * cols + c];
            out[1].data[r * cols + c] = v;
            sum += v * v;
        }
        const double rstd = 1.0 / std::sqrt(sum / cols + epsilon);
        for (int64_t c = 0; c < cols; ++c) {
            out[0].data[r * cols + c] = out[1].data[r * cols + c] * rstd * gamma[c];
        }
    }
}
