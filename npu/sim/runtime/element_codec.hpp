// The values of operator tensors' elements as the candidate-side driver and the trusted checker
// handle them: rounding doubles into a tensor's bytes and back, value ranges, and the poison
// pattern that marks output bytes the kernel never wrote. The element types themselves are
// op.json's (npu/protocol/dtype.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "npu/protocol/dtype.hpp"

namespace aopt::sim {

bool is_floating(npu::dtype t);
// The representable range of an integer type ([0, 1] for bool); +-infinity for floats.
double lowest_value(npu::dtype t);
double highest_value(npu::dtype t);

// Rounds `value` to the nearest value of type `t` (ties to even; integers saturate, NaN -> 0)
// and writes its bytes to `out`.
void encode_element(double value, npu::dtype t, void* out);
// Inline: checking an output decodes every element, and a loop over one tensor (one dtype) then
// compiles to the conversion alone.
inline double decode_element(const void* in, npu::dtype t);
// `value` after a round trip through type `t`.
double round_to_element(double value, npu::dtype t);

// Fills `count` elements with the poison pattern: a NaN bit pattern for floats, 0x5A bytes for
// integers and bool (0xA5 for odd `variant`s). An integer poison can equal a correct value, so
// consecutive input sets use alternating variants: an element the kernel never writes then
// differs from the expected value in at least one set.
void fill_poison(void* out, npu::dtype t, size_t count, uint32_t variant = 0);
inline bool is_poison(const void* element, npu::dtype t, uint32_t variant = 0);

namespace element_detail {

constexpr uint32_t float32_poison = 0x7FA5A5A5u;
constexpr uint16_t float16_poison = 0x7E5Au;
constexpr uint16_t bfloat16_poison = 0x7FA5u;
constexpr uint8_t integer_poison_bytes[2] = {0x5A, 0xA5};

template <class T>
T load(const void* in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

inline float float_of(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint32_t bits_of(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// Binary16 -> float, exact: the half's exponent and mantissa bits placed in a float are its
// value scaled by 2^-112 (subnormals too), so one multiplication rebiases them; infinities and
// NaNs keep an all-ones exponent.
inline float float16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7fffu;
  float f = float_of(magnitude << 13) * 0x1p112f;
  if (magnitude >= 0x7c00u) f = float_of((magnitude << 13) | 0x7f800000u);
  return float_of(bits_of(f) | sign);
}

}  // namespace element_detail

inline double decode_element(const void* in, npu::dtype t) {
  using element_detail::load;
  switch (t) {
    case npu::dtype::float32:
      return load<float>(in);
    case npu::dtype::float16:
      return element_detail::float16_to_float(load<uint16_t>(in));
    case npu::dtype::bfloat16:
      return element_detail::float_of(static_cast<uint32_t>(load<uint16_t>(in)) << 16);
    case npu::dtype::int8:
      return load<int8_t>(in);
    case npu::dtype::uint8:
      return load<uint8_t>(in);
    case npu::dtype::int16:
      return load<int16_t>(in);
    case npu::dtype::int32:
      return load<int32_t>(in);
    case npu::dtype::int64:
      return static_cast<double>(load<int64_t>(in));
    case npu::dtype::boolean:
      return load<uint8_t>(in);
  }
  return 0;
}

inline bool is_poison(const void* element, npu::dtype t, uint32_t variant) {
  using element_detail::load;
  switch (t) {
    case npu::dtype::float32:
      return load<uint32_t>(element) == element_detail::float32_poison;
    case npu::dtype::float16:
      return load<uint16_t>(element) == element_detail::float16_poison;
    case npu::dtype::bfloat16:
      return load<uint16_t>(element) == element_detail::bfloat16_poison;
    default: {
      const auto* bytes = static_cast<const unsigned char*>(element);
      for (uint32_t i = 0; i < npu::dtype_size(t); ++i) {
        if (bytes[i] != element_detail::integer_poison_bytes[variant % 2]) return false;
      }
      return true;
    }
  }
}

}  // namespace aopt::sim
