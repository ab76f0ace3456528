#include <algorithm>
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& /*attrs*/)
{
    const aopt_ref::tensor& x = in[0];
    const int64_t cols = x.last_dim();
    for (int64_t r = 0; r < x.rows(); ++r) {
        const double* row = x.data.data() + r * cols;
        double largest = 0;
        for (int64_t c = 0; c < cols; ++c) {
            largest = std::max(largest, std::fabs(row[c]));
        }
        for (int64_t c = 0; c < cols; ++c) {
            out[0].data[r * cols + c] = row[c] / largest;
        }
    }
}
