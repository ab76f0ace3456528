#include "element_codec.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "vector_loop.hpp"

namespace aopt::sim {
namespace {

using element_detail::bfloat16_poison;
using element_detail::float16_poison;
using element_detail::float32_poison;
using element_detail::integer_poison_bytes;

// IEEE-style binary format with `exp_bits` exponent and `mant_bits` mantissa bits (binary16:
// 5/10, bfloat16: 8/7), rounded directly from double (to nearest, ties to even) to avoid double
// rounding through float. Generating and checking tensors converts every element, so this works
// on the double's bits instead of calling into libm.
uint32_t encode_small_float(double value, int exp_bits, int mant_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t max_exp = (1u << exp_bits) - 1;
  uint64_t d = 0;
  std::memcpy(&d, &value, sizeof d);
  const uint32_t sign = (d >> 63) != 0 ? 1u << (exp_bits + mant_bits) : 0u;
  const uint32_t infinity = max_exp << mant_bits;
  const int d_exp = static_cast<int>((d >> 52) & 0x7FF);
  const uint64_t d_mant = d & ((uint64_t{1} << 52) - 1);
  if (d_exp == 0x7FF) return sign | infinity | (d_mant != 0 ? 1u << (mant_bits - 1) : 0u);
  const int e = d_exp - 1023;  // |value| = 1.m * 2^e (or a double subnormal: far below ours)
  if (e < 1 - bias) {
    // Subnormal: a multiple of the smallest subnormal; rounding up to 1 << mant_bits yields the
    // smallest normal's bit pattern. Scaling by a power of two is exact.
    const double scale = std::ldexp(1.0, bias - 1 + mant_bits);
    return sign | static_cast<uint32_t>(std::nearbyint(std::fabs(value) * scale));
  }
  const int shift = 52 - mant_bits;
  uint64_t fraction = d_mant >> shift;
  const uint64_t rest = d_mant & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (fraction & 1) != 0)) ++fraction;
  // A fraction rounded up to 1 << mant_bits carries into the exponent, which is what adding does.
  const uint64_t bits = (static_cast<uint64_t>(e + bias) << mant_bits) + fraction;
  if (bits >= infinity) return sign | infinity;
  return sign | static_cast<uint32_t>(bits);
}

template <class T>
void store(void* out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

template <class T>
T load(const void* in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

template <class T>
T saturate(double value) {
  if (std::isnan(value)) return 0;
  const double r = std::nearbyint(value);
  if (r <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

}  // namespace

bool is_floating(npu::dtype t) {
  return t == npu::dtype::float32 || t == npu::dtype::float16 || t == npu::dtype::bfloat16;
}

double lowest_value(npu::dtype t) {
  switch (t) {
    case npu::dtype::int8:
      return std::numeric_limits<int8_t>::lowest();
    case npu::dtype::uint8:
      return 0;
    case npu::dtype::int16:
      return std::numeric_limits<int16_t>::lowest();
    case npu::dtype::int32:
      return std::numeric_limits<int32_t>::lowest();
    case npu::dtype::int64:
      return static_cast<double>(std::numeric_limits<int64_t>::lowest());
    case npu::dtype::boolean:
      return 0;
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

double highest_value(npu::dtype t) {
  switch (t) {
    case npu::dtype::int8:
      return std::numeric_limits<int8_t>::max();
    case npu::dtype::uint8:
      return std::numeric_limits<uint8_t>::max();
    case npu::dtype::int16:
      return std::numeric_limits<int16_t>::max();
    case npu::dtype::int32:
      return std::numeric_limits<int32_t>::max();
    case npu::dtype::int64:
      return static_cast<double>(std::numeric_limits<int64_t>::max());
    case npu::dtype::boolean:
      return 1;
    default:
      return std::numeric_limits<double>::infinity();
  }
}

void encode_element(double value, npu::dtype t, void* out) {
  switch (t) {
    case npu::dtype::float32:
      store(out, static_cast<float>(value));
      break;
    case npu::dtype::float16:
      store(out, static_cast<uint16_t>(encode_small_float(value, 5, 10)));
      break;
    case npu::dtype::bfloat16:
      store(out, static_cast<uint16_t>(encode_small_float(value, 8, 7)));
      break;
    case npu::dtype::int8:
      store(out, saturate<int8_t>(value));
      break;
    case npu::dtype::uint8:
      store(out, saturate<uint8_t>(value));
      break;
    case npu::dtype::int16:
      store(out, saturate<int16_t>(value));
      break;
    case npu::dtype::int32:
      store(out, saturate<int32_t>(value));
      break;
    case npu::dtype::int64:
      store(out, saturate<int64_t>(value));
      break;
    case npu::dtype::boolean:
      store(out, static_cast<uint8_t>(value != 0 ? 1 : 0));
      break;
  }
}

double round_to_element(double value, npu::dtype t) {
  unsigned char bytes[8];
  encode_element(value, t, bytes);
  return decode_element(bytes, t);
}

AOPT_SIM_VECTOR_LOOP void fill_poison(void* out, npu::dtype t, size_t count, uint32_t variant) {
  auto* bytes = static_cast<unsigned char*>(out);
  switch (t) {
    case npu::dtype::float32:
      for (size_t i = 0; i < count; ++i) store(bytes + 4 * i, float32_poison);
      break;
    case npu::dtype::float16:
      for (size_t i = 0; i < count; ++i) store(bytes + 2 * i, float16_poison);
      break;
    case npu::dtype::bfloat16:
      for (size_t i = 0; i < count; ++i) store(bytes + 2 * i, bfloat16_poison);
      break;
    default:
      std::memset(out, integer_poison_bytes[variant % 2], count * npu::dtype_size(t));
      break;
  }
}

}  // namespace aopt::sim
