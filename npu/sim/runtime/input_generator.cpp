#include "input_generator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "element_codec.hpp"

namespace aopt::sim {
namespace {

double max_finite(npu::dtype t) {
  switch (t) {
    case npu::dtype::float16:
      return 65504.0;
    case npu::dtype::bfloat16:
      return 3.3895313892515355e38;
    default:
      return std::numeric_limits<float>::max();
  }
}

}  // namespace

std::vector<uint8_t> generate_input(const npu::tensor_spec& input, std::mt19937_64& rng) {
  using draw = npu::tensor_spec::distribution;
  const uint64_t n = input.numel();
  const uint32_t size = npu::dtype_size(input.type);
  const uint64_t row = input.shape.empty() ? 1 : static_cast<uint64_t>(input.shape.back());
  std::vector<double> values(n);
  double drawn_lo = 0.0;  // the range the values were drawn from, as drawn (offsets' ends)
  double drawn_hi = 0.0;
  if (input.draw == draw::permutation) {
    for (uint64_t i = 0; i < n; ++i) values[i] = static_cast<double>(i % row);
    for (uint64_t r = 0; r < n; r += row) {
      std::shuffle(values.begin() + static_cast<std::ptrdiff_t>(r),
                   values.begin() + static_cast<std::ptrdiff_t>(r + row), rng);
    }
  } else if (input.draw == draw::mask) {
    std::bernoulli_distribution coin(0.5);
    for (double& v : values) v = coin(rng) ? 1.0 : 0.0;
  } else if (is_floating(input.type)) {
    const double limit = max_finite(input.type);
    const double lo = std::clamp(input.range_lo, -limit, limit);
    const double hi = std::clamp(input.range_hi, lo, limit);
    drawn_lo = lo;
    drawn_hi = hi;
    if (input.draw == draw::normal) {
      std::normal_distribution<double> dist((lo + hi) / 2, (hi - lo) / 6);
      for (double& v : values) v = std::clamp(dist(rng), lo, hi);
    } else {
      std::uniform_real_distribution<double> dist(lo, hi);
      for (double& v : values) v = dist(rng);
    }
  } else {
    const double type_lo = lowest_value(input.type);
    const double type_hi = highest_value(input.type);
    double lo = std::clamp(std::ceil(input.range_lo), type_lo, type_hi);
    double hi = std::clamp(std::floor(input.range_hi), type_lo, type_hi);
    if (lo > hi) {
      // A range holding no integer ([0.2, 0.7]): its nearest integer.
      lo = hi = std::clamp(std::round((input.range_lo + input.range_hi) / 2), type_lo, type_hi);
    }
    drawn_lo = lo;
    drawn_hi = hi;
    if (input.draw == draw::normal) {
      std::normal_distribution<double> dist((lo + hi) / 2, (hi - lo) / 6);
      for (double& v : values) v = std::clamp(std::round(dist(rng)), lo, hi);
    } else {
      std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo),
                                                  static_cast<int64_t>(hi));
      for (double& v : values) v = static_cast<double>(dist(rng));
    }
  }
  if (input.draw == draw::sorted || input.draw == draw::offsets) {
    for (uint64_t r = 0; r < n; r += row) {
      std::sort(values.begin() + static_cast<std::ptrdiff_t>(r),
                values.begin() + static_cast<std::ptrdiff_t>(r + row));
    }
  }
  // Offsets partition the range: each row from its low end to its high end (a row of one holds
  // the low end), ascending in between.
  if (input.draw == draw::offsets && row > 0) {
    for (uint64_t r = 0; r < n; r += row) {
      values[r] = drawn_lo;
      if (row > 1) values[r + row - 1] = drawn_hi;
    }
  }
  std::vector<uint8_t> bytes(n * size);
  for (uint64_t i = 0; i < n; ++i) encode_element(values[i], input.type, bytes.data() + i * size);
  return bytes;
}

std::vector<double> decode_tensor(const npu::tensor_spec& t, const uint8_t* bytes) {
  const uint64_t n = t.numel();
  const uint32_t size = npu::dtype_size(t.type);
  std::vector<double> values(n);
  for (uint64_t i = 0; i < n; ++i) values[i] = decode_element(bytes + i * size, t.type);
  return values;
}

}  // namespace aopt::sim
