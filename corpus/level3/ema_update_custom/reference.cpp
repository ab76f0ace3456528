#include <algorithm>
#include <cmath>
#include <vector>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const double decay = attrs.number("decay");
    const std::vector<double>& x = in[0].data;
    const std::vector<double>& y = in[1].data;
    std::vector<double>& out0 = out[0].data;
    for (int64_t i = 0; i < in[0].numel(); ++i) {
        out0[i] = x[i] * decay + y[i] * (1.0 - decay);
    }
}
