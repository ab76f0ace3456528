// out[s] = sum of values[offsets[s] .. offsets[s + 1])
#include <cstddef>
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&)
{
    const std::vector<double>& values = in[0].data;
    const std::vector<double>& offsets = in[1].data;
    for (size_t s = 0; s + 1 < offsets.size(); ++s) {
        double sum = 0.0;
        for (auto i = static_cast<int64_t>(offsets[s]); i < static_cast<int64_t>(offsets[s + 1]); ++i) {
            sum += values[static_cast<size_t>(i)];
        }
        out[0].data[s] = sum;
    }
}
