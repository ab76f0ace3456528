#include <algorithm>
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const aopt_ref::tensor& logits = in[0];
    const auto& target = in[1].data;
    const int64_t classes = logits.last_dim();
    for (int64_t r = 0; r < logits.rows(); ++r) {
        const double* row = logits.data.data() + r * classes;
        const double rowMax = *std::max_element(row, row + classes);
        double sum = 0;
        for (int64_t c = 0; c < classes; ++c) {
            sum += std::exp(row[c] - rowMax);
        }
        out[0].data[r] = rowMax + std::log(sum) - row[static_cast<int64_t>(target[r])];
    }
}
