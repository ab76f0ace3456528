#include <vector>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    (void)attrs;
    const int64_t cols = in[0].last_dim();
    const std::vector<double>& x = in[0].data;
    const std::vector<double>& gamma = in[1].data;
    const std::vector<double>& r = in[2].data;
    std::vector<double>& y = out[0].data;
    for (int64_t i = 0; i < in[0].numel(); ++i) y[i] = r[i] + gamma[i % cols] * x[i];
}
