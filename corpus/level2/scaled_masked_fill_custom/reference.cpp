#include <algorithm>
#include <cmath>
#include <vector>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const double scale = attrs.number("scale");
    const double fill_value = attrs.number("fill_value");
    const std::vector<double>& x = in[0].data;
    const std::vector<double>& mask = in[1].data;
    std::vector<double>& y = out[0].data;
    for (int64_t i = 0; i < in[0].numel(); ++i) {
        y[i] = mask[i] != 0 ? fill_value : x[i] * scale;
    }
}
