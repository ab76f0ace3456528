// aopt simulator, host side: the temporary-buffer size helpers of the AscendC math library APIs
// whose kernel side the simulator provides, with the documented signatures:
//   Get<Api>MaxMinTmpSize(...)  the least and the most temporary UB the kernel API uses
//   Get<Api>TmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuf)  the same as
//       maxLiveNodeCount * elements * typeSize + extraBuf
//
// The simulator's kernel APIs compute without a temporary buffer (a sharedTmpBuffer argument is
// accepted and left untouched), so every helper reports one 32-byte data block: the smallest
// buffer TPipe::InitBuffer hands out, so a kernel that allocates minValue bytes gets a valid
// buffer (InitBuffer refuses 0 bytes), and min == max because more space buys nothing.
// maxLiveNodeCount is 0 (documented as possible; callers check it before dividing).
#pragma once

#include <cstdint>

#include "graph/tensor.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
namespace detail {

constexpr uint32_t sim_tmp_buffer_bytes = 32;

inline void sim_tmp_size(uint32_t& maxValue, uint32_t& minValue) {
  maxValue = sim_tmp_buffer_bytes;
  minValue = sim_tmp_buffer_bytes;
}

inline void sim_tmp_factor(uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
  maxLiveNodeCount = 0;
  extraBuf = sim_tmp_buffer_bytes;
}

}  // namespace detail

// The element-wise APIs: (srcShape, typeSize, isReuseSource, maxValue, minValue) and
// (typeSize, maxLiveNodeCount, extraBuf).
#define AOPT_SIM_ELEMENTWISE_TMP_SIZE(Api)                                              \
  inline void Get##Api##MaxMinTmpSize(const ge::Shape&, const uint32_t, const bool,     \
                                      uint32_t& maxValue, uint32_t& minValue) {         \
    detail::sim_tmp_size(maxValue, minValue);                                           \
  }                                                                                     \
  inline void Get##Api##TmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount, \
                                            uint32_t& extraBuf) {                       \
    detail::sim_tmp_factor(maxLiveNodeCount, extraBuf);                                 \
  }

AOPT_SIM_ELEMENTWISE_TMP_SIZE(Sin)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Cos)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Tan)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Tanh)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Asin)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Acos)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Atan)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Sinh)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Cosh)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Atanh)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Erf)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Erfc)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Sign)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Frac)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Floor)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Ceil)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Trunc)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Log)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Log2)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Log10)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Sigmoid)
AOPT_SIM_ELEMENTWISE_TMP_SIZE(Clamp)  // ClampMax and ClampMin
#undef AOPT_SIM_ELEMENTWISE_TMP_SIZE

// Round's helpers also take the platform.
inline void GetRoundMaxMinTmpSize(const platform_ascendc::PlatformAscendC&, const ge::Shape&,
                                  const uint32_t, const bool, uint32_t& maxValue,
                                  uint32_t& minValue) {
  detail::sim_tmp_size(maxValue, minValue);
}
inline void GetRoundTmpBufferFactorSize(const platform_ascendc::PlatformAscendC&, const uint32_t,
                                        uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
  detail::sim_tmp_factor(maxLiveNodeCount, extraBuf);
}

// Power: the two shapes tell tensor^tensor, tensor^scalar and scalar^tensor apart.
inline void GetPowerMaxMinTmpSize(const ge::Shape&, const ge::Shape&, const bool, const uint32_t,
                                  const bool, uint32_t& maxValue, uint32_t& minValue) {
  detail::sim_tmp_size(maxValue, minValue);
}

inline void GetCumSumMaxMinTmpSize(const ge::Shape&, const uint32_t, const bool, const bool,
                                   uint32_t& maxValue, uint32_t& minValue) {
  detail::sim_tmp_size(maxValue, minValue);
}

// Sum and Mean: n is the summed elements of a row.
inline void GetSumMaxMinTmpSize(const uint32_t, const uint32_t, const bool, uint32_t& maxSize,
                                uint32_t& minSize) {
  detail::sim_tmp_size(maxSize, minSize);
}
inline void GetMeanMaxMinTmpSize(const uint32_t, const uint32_t, const uint32_t, const bool,
                                 uint32_t& maxSize, uint32_t& minSize) {
  detail::sim_tmp_size(maxSize, minSize);
}
inline void GetMeanTmpBufferFactorSize(const uint32_t, uint32_t& maxLiveNodeCount,
                                       uint32_t& extraBuffer) {
  detail::sim_tmp_factor(maxLiveNodeCount, extraBuffer);
}

inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC&, const ge::Shape&,
                                      const ge::Shape&, uint32_t, const bool, uint32_t& maxValue,
                                      uint32_t& minValue) {
  detail::sim_tmp_size(maxValue, minValue);
}

// Sort's temporary buffer for elemCount elements of dataTypeSize bytes (one value).
inline uint32_t GetSortTmpSize(const platform_ascendc::PlatformAscendC&, const uint32_t,
                               const uint32_t) {
  return detail::sim_tmp_buffer_bytes;
}

// Gelu has no isReuseSource, and separate max and min queries.
inline void GetGeluMaxMinTmpSize(const ge::Shape&, const uint32_t, uint32_t& maxValue,
                                 uint32_t& minValue) {
  detail::sim_tmp_size(maxValue, minValue);
}
inline uint32_t GetGeluMaxTmpSize(const ge::Shape&, const uint32_t) {
  return detail::sim_tmp_buffer_bytes;
}
inline uint32_t GetGeluMinTmpSize(const ge::Shape&, const uint32_t) {
  return detail::sim_tmp_buffer_bytes;
}

}  // namespace AscendC
