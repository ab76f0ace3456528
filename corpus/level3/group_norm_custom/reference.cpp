#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& x = in[0];
    const auto& gamma = in[1].data;
    const auto& beta = in[2].data;
    const int64_t groups = static_cast<int64_t>(attrs.number("num_groups"));
    const double epsilon = attrs.number("epsilon");
    const int64_t batch = x.dim(0);
    const int64_t channels = x.dim(1);
    const int64_t spatial = x.numel() / (batch * channels);
    const int64_t groupLength = channels / groups * spatial;
    for (int64_t n = 0; n < batch; ++n) {
        for (int64_t g = 0; g < groups; ++g) {
            const int64_t base = (n * groups + g) * groupLength;
            double mean = 0;
            for (int64_t i = 0; i < groupLength; ++i) {
                mean += x.data[base + i];
            }
            mean /= groupLength;
            double variance = 0;
            for (int64_t i = 0; i < groupLength; ++i) {
                variance += (x.data[base + i] - mean) * (x.data[base + i] - mean);
            }
            variance /= groupLength;
            const double rstd = 1.0 / std::sqrt(variance + epsilon);
            for (int64_t i = 0; i < groupLength; ++i) {
                const int64_t c = g * (channels / groups) + i / spatial;
                out[0].data[base + i] = (x.data[base + i] - mean) * rstd * gamma[c] + beta[c];
            }
        }
    }
}
