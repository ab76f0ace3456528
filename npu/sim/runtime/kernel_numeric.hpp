// Element arithmetic of the simulated vector unit: the storage types of half and bfloat16 in UB,
// their conversions to and from float, rounding a double to a floating format under each
// AscendC RoundMode, and per-type load/store traits for the element loops.
//
// Half and bfloat16 are computed in float and rounded back once per operation (exact for
// add/sub/mul/div/sqrt: float carries more than twice their precision); integers compute in
// int64 and wrap to their width.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aopt_sim/kernel/defs.h"

namespace aopt::sim::kernel {

// UB storage of a half / bfloat16 element (distinct types so templates can tell them apart).
struct f16s {
  uint16_t bits;
};
struct bf16s {
  uint16_t bits;
};

inline uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

inline float float_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Half -> float, exact: the half's exponent and mantissa bits placed in a float are the value
// scaled by 2^-112 (also for subnormals), so one multiplication rebiases them.
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7fffu;
  float f = float_of(magnitude << 13) * 0x1p112f;
  if (magnitude >= 0x7c00u) f = float_of((magnitude << 13) | 0x7f800000u);  // inf, NaN
  return float_of(bits_of(f) | sign);
}

// Float -> half, round to nearest even; overflow gives infinity, NaN stays NaN.
inline uint16_t f32_to_f16(float f) {
  uint32_t x = bits_of(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 makes float's own rounding happen at the half
    // subnormal spacing 2^-24.
    const float t = float_of(x) + 0.5f;
    return static_cast<uint16_t>(sign | (bits_of(t) - 0x3f000000u));
  }
  const uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias the exponent by -112 and round the 13 dropped bits
  return static_cast<uint16_t>(sign | (x >> 13));
}

inline float bf16_to_f32(uint16_t b) {
  return float_of(static_cast<uint32_t>(b) << 16);
}

inline uint16_t f32_to_bf16(float f) {
  const uint32_t b = bits_of(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

// An integral value of `q` (>= 0, the magnitude of a value of sign `negative`) under `mode`.
inline double round_magnitude(double q, AscendC::RoundMode mode, bool negative) {
  switch (mode) {
    case AscendC::RoundMode::CAST_FLOOR:
      return negative ? std::ceil(q) : std::floor(q);
    case AscendC::RoundMode::CAST_CEIL:
      return negative ? std::floor(q) : std::ceil(q);
    case AscendC::RoundMode::CAST_ROUND:
      return std::round(q);
    case AscendC::RoundMode::CAST_TRUNC:
      return std::trunc(q);
    case AscendC::RoundMode::CAST_ODD: {
      double t = std::trunc(q);
      if (t != q && std::fmod(t, 2.0) == 0.0) t += 1.0;
      return t;
    }
    default:
      return std::nearbyint(q);  // ties to even in the default floating-point environment
  }
}

// `x` rounded to a binary floating format with `precision` significand bits, smallest normal
// exponent `min_exp` (frexp convention) and largest finite value `max_finite`.
inline double round_to_format(double x, int precision, int min_exp, double max_finite,
                              AscendC::RoundMode mode) {
  if (x == 0 || !std::isfinite(x)) return x;
  const bool negative = x < 0;
  int e = 0;
  std::frexp(std::fabs(x), &e);
  const int ulp_exp = (e > min_exp ? e : min_exp) - precision;
  double r =
      std::ldexp(round_magnitude(std::ldexp(std::fabs(x), -ulp_exp), mode, negative), ulp_exp);
  if (r > max_finite) {
    bool to_inf = true;
    switch (mode) {
      case AscendC::RoundMode::CAST_TRUNC:
      case AscendC::RoundMode::CAST_ODD:
        to_inf = false;
        break;
      case AscendC::RoundMode::CAST_FLOOR:
        to_inf = negative;
        break;
      case AscendC::RoundMode::CAST_CEIL:
        to_inf = !negative;
        break;
      default:
        break;
    }
    r = to_inf ? std::numeric_limits<double>::infinity() : max_finite;
  }
  return negative ? -r : r;
}

inline double round_integral(double x, AscendC::RoundMode mode) {
  if (!std::isfinite(x)) return x;
  const double r = round_magnitude(std::fabs(x), mode, x < 0);
  return x < 0 ? -r : r;
}

template <typename S>
constexpr bool is_float_storage =
    std::is_same_v<S, float> || std::is_same_v<S, f16s> || std::is_same_v<S, bf16s>;

// load: storage -> computation type; store: computation type -> storage (rounding or wrapping).
template <typename S, typename Enable = void>
struct elem;

template <>
struct elem<float> {
  using calc = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
  static double to_double(float v) { return v; }
  static float from_double(double v, AscendC::RoundMode mode) {
    return static_cast<float>(
        round_to_format(v, 24, -125, std::numeric_limits<float>::max(), mode));
  }
};

template <>
struct elem<f16s> {
  using calc = float;
  static float load(f16s v) { return f16_to_f32(v.bits); }
  static f16s store(float v) { return f16s{f32_to_f16(v)}; }
  static double to_double(f16s v) { return f16_to_f32(v.bits); }
  static f16s from_double(double v, AscendC::RoundMode mode) {
    return f16s{f32_to_f16(static_cast<float>(round_to_format(v, 11, -13, 65504.0, mode)))};
  }
};

template <>
struct elem<bf16s> {
  using calc = float;
  static float load(bf16s v) { return bf16_to_f32(v.bits); }
  static bf16s store(float v) { return bf16s{f32_to_bf16(v)}; }
  static double to_double(bf16s v) { return bf16_to_f32(v.bits); }
  static bf16s from_double(double v, AscendC::RoundMode mode) {
    const double max_bf16 = static_cast<double>(bf16_to_f32(0x7f7fu));
    return bf16s{f32_to_bf16(static_cast<float>(round_to_format(v, 8, -125, max_bf16, mode)))};
  }
};

template <typename S>
struct elem<S, std::enable_if_t<std::is_integral_v<S>>> {
  using calc = int64_t;
  static int64_t load(S v) { return static_cast<int64_t>(v); }
  static S store(int64_t v) {
    return static_cast<S>(static_cast<std::make_unsigned_t<S>>(static_cast<uint64_t>(v)));
  }
  static double to_double(S v) { return static_cast<double>(v); }
  // Rounds by `mode` (CAST_NONE and CAST_RINT: to nearest even) and saturates; NaN gives 0.
  static S from_double(double v, AscendC::RoundMode mode) {
    if (std::isnan(v)) return 0;
    const double r = round_integral(
        v, mode == AscendC::RoundMode::CAST_NONE ? AscendC::RoundMode::CAST_RINT : mode);
    if (r <= static_cast<double>(std::numeric_limits<S>::lowest()))
      return std::numeric_limits<S>::lowest();
    if (r >= static_cast<double>(std::numeric_limits<S>::max()))
      return std::numeric_limits<S>::max();
    return static_cast<S>(r);
  }
};

}  // namespace aopt::sim::kernel
