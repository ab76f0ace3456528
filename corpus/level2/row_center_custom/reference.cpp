#include <vector>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    (void)attrs;
    const int64_t cols = in[0].last_dim();
    const std::vector<double>& x = in[0].data;
    std::vector<double>& y = out[0].data;
    for (int64_t r = 0; r < in[0].rows(); ++r) {
        double sum = 0;
        for (int64_t c = 0; c < cols; ++c) sum += x[r * cols + c];
        const double mean = sum / static_cast<double>(cols);
        for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] - mean;
    }
}
