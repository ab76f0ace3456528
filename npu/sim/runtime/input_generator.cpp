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

// The per-element part of an input's draw, in element order: next() continues one sequence, so
// drawing in chunks draws exactly the values one pass over the whole tensor would. The ends of
// the range the values come from are `lo` and `hi` (offsets pin each row's first and last
// element to them).
class element_draw {
 public:
  explicit element_draw(const npu::tensor_spec& input) {
    using draw = npu::tensor_spec::distribution;
    if (input.draw == draw::mask) {
      kind_ = kind::mask;
    } else if (is_floating(input.type)) {
      const double limit = max_finite(input.type);
      lo = std::clamp(input.range_lo, -limit, limit);
      hi = std::clamp(input.range_hi, lo, limit);
      kind_ = input.draw == draw::normal ? kind::real_normal : kind::real_uniform;
    } else {
      const double type_lo = lowest_value(input.type);
      const double type_hi = highest_value(input.type);
      lo = std::clamp(std::ceil(input.range_lo), type_lo, type_hi);
      hi = std::clamp(std::floor(input.range_hi), type_lo, type_hi);
      if (lo > hi) {
        // A range holding no integer ([0.2, 0.7]): its nearest integer.
        lo = hi = std::clamp(std::round((input.range_lo + input.range_hi) / 2), type_lo, type_hi);
      }
      kind_ = input.draw == draw::normal ? kind::int_normal : kind::int_uniform;
    }
    if (kind_ == kind::real_normal || kind_ == kind::int_normal) {
      normal_ = std::normal_distribution<double>((lo + hi) / 2, (hi - lo) / 6);
    }
    if (kind_ == kind::real_uniform) real_ = std::uniform_real_distribution<double>(lo, hi);
    if (kind_ == kind::int_uniform) {
      integer_ = std::uniform_int_distribution<int64_t>(static_cast<int64_t>(lo),
                                                        static_cast<int64_t>(hi));
    }
  }

  void next(std::mt19937_64& rng, double* values, size_t n) {
    switch (kind_) {
      case kind::mask:
        for (size_t i = 0; i < n; ++i) values[i] = coin_(rng) ? 1.0 : 0.0;
        break;
      case kind::real_normal:
        for (size_t i = 0; i < n; ++i) values[i] = std::clamp(normal_(rng), lo, hi);
        break;
      case kind::real_uniform:
        for (size_t i = 0; i < n; ++i) values[i] = real_(rng);
        break;
      case kind::int_normal:
        for (size_t i = 0; i < n; ++i) values[i] = std::clamp(std::round(normal_(rng)), lo, hi);
        break;
      case kind::int_uniform:
        for (size_t i = 0; i < n; ++i) values[i] = static_cast<double>(integer_(rng));
        break;
    }
  }

  double lo = 0.0;
  double hi = 0.0;

 private:
  enum class kind { mask, real_normal, real_uniform, int_normal, int_uniform };
  kind kind_ = kind::real_uniform;
  std::bernoulli_distribution coin_{0.5};
  std::normal_distribution<double> normal_;
  std::uniform_real_distribution<double> real_;
  std::uniform_int_distribution<int64_t> integer_;
};

void encode_values(const npu::tensor_spec& input, const double* values, uint64_t n, uint8_t* out) {
  const uint32_t size = npu::dtype_size(input.type);
  for (uint64_t i = 0; i < n; ++i) encode_element(values[i], input.type, out + i * size);
}

// Elements drawn and encoded at a time: the values of a chunk stay in cache, and a large tensor
// needs no array of doubles the size of itself.
constexpr uint64_t chunk_elements = 4096;

}  // namespace

void generate_input_into(const npu::tensor_spec& input, std::mt19937_64& rng, uint8_t* out) {
  using draw = npu::tensor_spec::distribution;
  const uint64_t n = input.numel();
  const uint64_t row = input.shape.empty() ? 1 : static_cast<uint64_t>(input.shape.back());
  if (input.draw == draw::permutation) {
    std::vector<double> values(n);
    for (uint64_t i = 0; i < n; ++i) values[i] = static_cast<double>(i % row);
    for (uint64_t r = 0; r < n; r += row) {
      std::shuffle(values.begin() + static_cast<std::ptrdiff_t>(r),
                   values.begin() + static_cast<std::ptrdiff_t>(r + row), rng);
    }
    encode_values(input, values.data(), n, out);
    return;
  }
  element_draw drawn(input);
  if (input.draw == draw::sorted || input.draw == draw::offsets) {
    std::vector<double> values(n);
    drawn.next(rng, values.data(), n);
    for (uint64_t r = 0; r < n; r += row) {
      std::sort(values.begin() + static_cast<std::ptrdiff_t>(r),
                values.begin() + static_cast<std::ptrdiff_t>(r + row));
    }
    // Offsets partition the range: each row from its low end to its high end (a row of one
    // holds the low end), ascending in between.
    if (input.draw == draw::offsets && row > 0) {
      for (uint64_t r = 0; r < n; r += row) {
        values[r] = drawn.lo;
        if (row > 1) values[r + row - 1] = drawn.hi;
      }
    }
    encode_values(input, values.data(), n, out);
    return;
  }
  const uint32_t size = npu::dtype_size(input.type);
  double chunk[chunk_elements];
  for (uint64_t first = 0; first < n; first += chunk_elements) {
    const uint64_t count = std::min(chunk_elements, n - first);
    drawn.next(rng, chunk, count);
    encode_values(input, chunk, count, out + first * size);
  }
}

std::vector<uint8_t> generate_input(const npu::tensor_spec& input, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(input.numel() * npu::dtype_size(input.type));
  generate_input_into(input, rng, bytes.data());
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
