// out[i, :] = table[indices[i], :]
#include <cstddef>
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&)
{
    const size_t dim = static_cast<size_t>(in[0].shape[1]);
    const size_t rows = in[1].data.size();
    for (size_t i = 0; i < rows; ++i) {
        const size_t row = static_cast<size_t>(static_cast<int64_t>(in[1].data[i]));
        for (size_t d = 0; d < dim; ++d) out[0].data[i * dim + d] = in[0].data[row * dim + d];
    }
}
