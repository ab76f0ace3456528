#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const auto& start = in[0].data;
    const auto& end = in[1].data;
    const auto& weight = in[2].data;
    for (int64_t i = 0; i < in[0].numel(); ++i) {
        out[0].data[i] = start[i] + weight[i] * (end[i] - start[i]);
    }
}
