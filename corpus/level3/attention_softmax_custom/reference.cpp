#include <algorithm>
#include <cmath>
#include <vector>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs)
{
    const aopt_ref::tensor& scores = in[0];
    const auto& mask = in[1].data;
    const double scale = attrs.number("scale");
    const int64_t seqLen = scores.last_dim();
    std::vector<double> row(seqLen);
    for (int64_t r = 0; r < scores.rows(); ++r) {
        const int64_t maskRow = r % seqLen;
        for (int64_t c = 0; c < seqLen; ++c) {
            row[c] = scores.data[r * seqLen + c] * scale + mask[maskRow * seqLen + c] * -10000.0;
        }
        const double rowMax = *std::max_element(row.begin(), row.end());
        double sum = 0;
        for (int64_t c = 0; c < seqLen; ++c) {
            row[c] = std::exp(row[c] - rowMax);
            sum += row[c];
        }
        for (int64_t c = 0; c < seqLen; ++c) {
            out[0].data[r * seqLen + c] = row[c] / sum;
        }
    }
}
