#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& x = in[0];
    const auto& gamma = in[1].data;
    const auto& beta = in[2].data;
    const double epsilon = attrs.number("epsilon");
    const int64_t cols = x.last_dim();
    for (int64_t r = 0; r < x.rows(); ++r) {
        const double* row = x.data.data() + r * cols;
        double mean = 0;
        for (int64_t c = 0; c < cols; ++c) {
            mean += row[c];
        }
        mean /= cols;
        double variance = 0;
        for (int64_t c = 0; c < cols; ++c) {
            variance += (row[c] - mean) * (row[c] - mean);
        }
        variance /= cols;
        const double rstd = 1.0 / std::sqrt(variance + epsilon);
        for (int64_t c = 0; c < cols; ++c) {
            out[0].data[r * cols + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
        }
    }
}
