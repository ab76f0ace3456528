// aopt simulator, kernel side: GatherMask and Gatherb.
//
// GatherMask: The elements of src0 that a gather mask selects are
// written to dst one after another; rsvdCnt receives how many. The mask is a built-in pattern
// (src1Pattern 1..7: even indexes, odd indexes, the first/second/third/fourth of every four, all)
// or a user tensor of bits (uint16_t words for 2-byte T, uint32_t for 4-byte T; bit i of a
// repeat selects element i, the low bit of the first word first).
//
// reduceMode false (normal): repeatTimes repeats of 256 bytes, mask unused. reduceMode true
// (counter, in the A2/A3 form): repeatTimes repeats of `mask` elements. src0BlockStride and
// src0RepeatStride place src0's blocks (32-byte units), src1RepeatStride a user pattern's
// repeats (built-in patterns repeat unchanged). The call leaves the mask mode normal.
//
// Gatherb (A2/A3: uint16_t, uint32_t): repeatTime repeats of 8 32-byte blocks; the i-th block
// gathered comes from src0 + offset[i] bytes (32-byte aligned) and is written at
// repeat * dstRepStride + block * dstBlkStride blocks from dst.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {

// Reserved by the documentation ("for later functions"); only the default exists.
enum class GatherMaskMode : uint8_t { DEFAULT = 0 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::DEFAULT;
constexpr GatherMaskMode defaultGahterMaskMode = GatherMaskMode::DEFAULT;  // older spelling

// src0RepeatStride defaults to the consecutive 8 blocks, as the other repeat parameter structures
// of the documentation do (DEFAULT_REPEAT_STRIDE): public kernels set only repeatTimes and gather
// from consecutive repeats (DrivingSDK's multi_scale_deformable_attn and grid_sampler2d_v2 split
// interleaved x/y this way). The pattern's stride stays 0: the built-in patterns ignore it.
struct GatherMaskParams {
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 8;
  uint8_t src1RepeatStride = 0;
};

namespace detail {

inline aopt_sim::rt::gather_mask_params gather_mask_rt(const GatherMaskParams& p) {
  aopt_sim::rt::gather_mask_params r;
  r.src0BlockStride = p.src0BlockStride;
  r.repeatTimes = p.repeatTimes;
  r.src0RepeatStride = p.src0RepeatStride;
  r.src1RepeatStride = p.src1RepeatStride;
  return r;
}

template <typename T>
constexpr bool gather_mask_type = sizeof(T) == 2 || (sizeof(T) == 4 && !std::is_same_v<T, int64_t>);

}  // namespace detail

template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                const LocalTensor<U>& src1Pattern, const bool reduceMode, const uint32_t mask,
                const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt,
                aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  static_assert(detail::gather_mask_type<T>, "GatherMask: 2- or 4-byte element types");
  static_assert(std::is_same_v<U, uint16_t> || std::is_same_v<U, uint32_t>,
                "GatherMask: src1Pattern is uint16_t or uint32_t");
  static_assert(sizeof(U) == sizeof(T),
                "GatherMask: src1Pattern is uint16_t for 2-byte T, uint32_t for 4-byte T");
  rsvdCnt = aopt_sim::rt::vec_gather_mask(sizeof(T), dst.aopt_ref(), src0.aopt_ref(),
                                          &src1Pattern.aopt_ref(), 0, reduceMode, mask,
                                          detail::gather_mask_rt(gatherMaskParams), site);
}

template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                const bool reduceMode, const uint32_t mask,
                const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt,
                aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  static_assert(detail::gather_mask_type<T>, "GatherMask: 2- or 4-byte element types");
  rsvdCnt = aopt_sim::rt::vec_gather_mask(sizeof(T), dst.aopt_ref(), src0.aopt_ref(), nullptr,
                                          src1Pattern, reduceMode, mask,
                                          detail::gather_mask_rt(gatherMaskParams), site);
}

// The strides Gatherb reads (dstBlkStride, dstRepStride, in 32-byte blocks); the rest are
// documented as reserved.
struct GatherRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
  uint8_t blockNumber = 8;
  uint16_t src0BlkStride = 1;
  uint16_t src1BlkStride = 1;
  uint16_t src0RepStride = 8;
  uint16_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

template <typename T>
void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
             const LocalTensor<uint32_t>& offset, const uint8_t repeatTime,
             const GatherRepeatParams& repeatParams,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  static_assert(std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>,
                "Gatherb: uint16_t or uint32_t (A2/A3)");
  aopt_sim::rt::vec_gatherb(dst.aopt_ref(), src0.aopt_ref(), offset.aopt_ref(), repeatTime,
                            repeatParams.dstBlkStride, repeatParams.dstRepStride, site);
}

}  // namespace AscendC
