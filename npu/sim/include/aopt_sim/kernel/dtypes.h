// aopt simulator, kernel side: the element types of AscendC kernels.
//
// `half` is IEEE binary16 (GCC's _Float16: arithmetic promotes to float, conversions round to
// nearest even). `bfloat16_t` stores the upper 16 bits of a float; converting a float to it
// rounds to nearest even, and arithmetic on it happens in float (as it does on the vector unit,
// which widens bf16 before computing).
#pragma once

#include <cstdint>
#include <cstring>

using half = _Float16;
// The NPU compiler's name for a 32-bit float beside half (kernels declare GlobalTensor<float32_t>).
using float32_t = float;

namespace aopt_sim {

inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

inline float float_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// float -> bfloat16 bits, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t bf16_bits_from_float(float f) {
  const uint32_t b = float_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

inline float float_from_bf16_bits(uint16_t h) {
  return float_from_bits(static_cast<uint32_t>(h) << 16);
}

}  // namespace aopt_sim

struct bfloat16_t {
  uint16_t bits = 0;

  bfloat16_t() = default;
  bfloat16_t(float f)
      : bits(aopt_sim::bf16_bits_from_float(f)) {}  // NOLINT: implicit like a builtin
  operator float() const { return aopt_sim::float_from_bf16_bits(bits); }  // NOLINT

  static bfloat16_t from_bits(uint16_t b) {
    bfloat16_t v;
    v.bits = b;
    return v;
  }
};

namespace AscendC {

inline float ToFloat(const bfloat16_t& v) {
  return static_cast<float>(v);
}
inline bfloat16_t ToBfloat16(const float& v) {
  return bfloat16_t(v);
}

}  // namespace AscendC
