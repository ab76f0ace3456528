#include <algorithm>
#include <numeric>
#include <vector>

#include "aopt/reference.h"

// The k largest values of each row, largest first (equal values in column order), and their
// column indices.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& attrs) {
  const int64_t k = static_cast<int64_t>(attrs.number("k"));
  const int64_t cols = in[0].last_dim();
  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t r = 0; r < in[0].rows(); ++r) {
    const double* x = in[0].data.data() + r * cols;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[a] > x[b]; });
    for (int64_t i = 0; i < k; ++i) {
      out[0].data[r * k + i] = x[order[i]];
      out[1].data[r * k + i] = static_cast<double>(order[i]);
    }
  }
}
