// aopt simulator, kernel side: the scalar helpers, constants and type traits real AscendC kernels
// use besides the tensor APIs (written from the public AscendC documentation):
//   DivCeil / Ceil (a / b rounded up), AlignUp (a rounded up to a multiple of b), with mixed
//   integer argument types as kernels write them (`Ceil(uint64_t, int)`);
//   ScalarGetSFFValue<0|1> (position of the first 0/1 bit from the LSB, -1 if none),
//   ScalarGetCountOfValue<0|1> (how many 0/1 bits), ScalarCountLeadingZero, ScalarCast
//   (float -> half/int32 with a RoundMode), the sbitset0/sbitset1 bit intrinsics;
//   AscendCUtils::GetBitSize, IsSameType, likely/unlikely, and the block/repeat constants
//   (FULL_MASK, ONE_REPEAT_FLOAT_SIZE, B32_*/B16_*, BRCB_BROADCAST_NUMBER, PI).
//
// These run on the scalar unit: plain C++ arithmetic, like the kernel's own scalar code, so they
// are neither traced nor priced separately.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/dtypes.h"

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace AscendC {

constexpr uint64_t FULL_MASK = ~uint64_t{0};
constexpr int32_t ONE_REPEAT_FLOAT_SIZE = ONE_REPEAT_BYTE_SIZE / 4;
constexpr int32_t ONE_REPEAT_HALF_SIZE = ONE_REPEAT_BYTE_SIZE / 2;
constexpr int32_t ONE_BLOCK_SIZE = ONE_BLK_SIZE;
constexpr int32_t B32_BYTE_SIZE = 4;
constexpr int32_t B16_BYTE_SIZE = 2;
constexpr int32_t B8_BYTE_SIZE = 1;
constexpr int32_t B32_DATA_NUM_PER_BLOCK = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr int32_t B16_DATA_NUM_PER_BLOCK = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr int32_t B32_DATA_NUM_PER_REPEAT = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr int32_t B16_DATA_NUM_PER_REPEAT = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
// Brcb writes each source element over one 32-byte block: 8 elements per repeat.
constexpr int32_t BRCB_BROADCAST_NUMBER = 8;
constexpr float PI = 3.14159265358979323846f;

namespace detail {

// The common type of two integer arguments as the hardware's scalar unit computes it: unsigned
// when either is unsigned, 64-bit when either is.
template <typename T, typename U>
using scalar_common_t = std::common_type_t<T, U>;

}  // namespace detail

// a / b rounded up; 0 when b is 0 (the documented helpers guard the division).
template <typename T, typename U,
          typename = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
constexpr detail::scalar_common_t<T, U> DivCeil(T a, U b) {
  using R = detail::scalar_common_t<T, U>;
  return b == 0 ? R(0)
                : static_cast<R>((static_cast<R>(a) + static_cast<R>(b) - 1) / static_cast<R>(b));
}

template <typename T, typename U,
          typename = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
constexpr detail::scalar_common_t<T, U> Ceil(T a, U b) {
  return DivCeil(a, b);
}

// a rounded up to a multiple of b (a when b is 0).
template <typename T, typename U,
          typename = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
constexpr detail::scalar_common_t<T, U> AlignUp(T a, U b) {
  using R = detail::scalar_common_t<T, U>;
  return b == 0 ? static_cast<R>(a) : static_cast<R>(DivCeil(a, b) * static_cast<R>(b));
}

template <typename T, typename U>
struct IsSameType {
  static constexpr bool value = false;
};
template <typename T>
struct IsSameType<T, T> {
  static constexpr bool value = true;
};

class AscendCUtils {
 public:
  static constexpr uint32_t GetBitSize(uint32_t byteSize) { return byteSize * 8; }
  static constexpr uint32_t GetC0Size() { return ONE_BLK_SIZE; }
  template <typename T>
  static constexpr uint32_t GetC0Count() {
    return ONE_BLK_SIZE / sizeof(T);
  }
};

// Position of the first `countValue` bit (0 or 1) counted from the least significant bit, or -1.
template <int countValue>
int64_t ScalarGetSFFValue(uint64_t valueIn) {
  static_assert(countValue == 0 || countValue == 1, "ScalarGetSFFValue: countValue is 0 or 1");
  const uint64_t v = countValue == 1 ? valueIn : ~valueIn;
  return v == 0 ? -1 : static_cast<int64_t>(__builtin_ctzll(v));
}

// How many bits of valueIn are `countValue`.
template <int countValue>
int64_t ScalarGetCountOfValue(uint64_t valueIn) {
  static_assert(countValue == 0 || countValue == 1, "ScalarGetCountOfValue: countValue is 0 or 1");
  const int64_t ones = __builtin_popcountll(valueIn);
  return countValue == 1 ? ones : 64 - ones;
}

inline int64_t ScalarCountLeadingZero(uint64_t valueIn) {
  return valueIn == 0 ? 64 : static_cast<int64_t>(__builtin_clzll(valueIn));
}

// A scalar conversion with a rounding mode (float -> half, float -> int32_t).
template <typename T, typename U, RoundMode roundMode>
U ScalarCast(T valueIn) {
  const double v = static_cast<double>(static_cast<float>(valueIn));
  if constexpr (std::is_integral_v<U>) {
    double r = v;
    switch (roundMode) {
      case RoundMode::CAST_FLOOR:
        r = std::floor(v);
        break;
      case RoundMode::CAST_CEIL:
        r = std::ceil(v);
        break;
      case RoundMode::CAST_ROUND:
        r = std::round(v);
        break;
      case RoundMode::CAST_TRUNC:
        r = std::trunc(v);
        break;
      default:
        r = std::nearbyint(v);  // CAST_RINT / CAST_NONE: to nearest, ties to even
        break;
    }
    return static_cast<U>(r);
  } else {
    return static_cast<U>(static_cast<float>(valueIn));
  }
}

}  // namespace AscendC

// The bit intrinsics of the Ascend C compiler: `x` with bit `idx` cleared / set.
inline uint64_t sbitset0(uint64_t x, int64_t idx) {
  return idx < 0 || idx > 63 ? x : x & ~(uint64_t{1} << idx);
}
inline uint64_t sbitset1(uint64_t x, int64_t idx) {
  return idx < 0 || idx > 63 ? x : x | (uint64_t{1} << idx);
}
