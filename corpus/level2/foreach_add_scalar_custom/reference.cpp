#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const double alpha = attrs.number("alpha");
    for (size_t t = 0; t < in.size(); ++t) {
        const auto& x = in[t].data;
        auto& y = out[t].data;
        for (int64_t i = 0; i < in[t].numel(); ++i) {
            y[i] = x[i] + alpha;
        }
    }
}
