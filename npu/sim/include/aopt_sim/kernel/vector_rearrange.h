// aopt simulator, kernel side: vector APIs that move elements rather than compute them, each
// one V instruction (costed as a simple vector op over the bytes it writes):
//   Copy (UB -> UB with a lane mask and CopyRepeatParams strides), Gather (element offsets in
//   bytes; by count, or by lane mask and repeat), Brcb (each of 8 elements broadcast to a 32-byte
//   block), CreateVecIndex (first, first + 1, ...; by count, or by lane mask with block and repeat
//   strides), Transpose (the 16 x 16 two-byte form; the enhanced form with TransposeParamsExt),
//   TransDataTo5HD (the NCHW -> NC1HWC0 transpose over lists of 16 source and 16 destination
//   blocks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aopt_sim/kernel/composite.h"
#include "aopt_sim/kernel/vector_ops.h"

namespace AscendC {

struct CopyRepeatParams {
  CopyRepeatParams() {}
  CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                   uint16_t srcRepeatSizeIn)
      : dstStride(dstStrideIn),
        srcStride(srcStrideIn),
        dstRepeatSize(dstRepeatSizeIn),
        srcRepeatSize(srcRepeatSizeIn) {}
  uint16_t dstStride = 1;  // 32-byte blocks between blocks of one repeat
  uint16_t srcStride = 1;
  uint16_t dstRepeatSize = 8;  // 32-byte blocks between repeats
  uint16_t srcRepeatSize = 8;
};

struct BrcbRepeatParams {
  BrcbRepeatParams() {}
  BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
  uint16_t dstBlkStride = 1;  // 0 counts as 1
  uint16_t dstRepStride = 8;
};

namespace detail {

// The lanes of one repeat a mask selects: bit l of lo (l < 64) or of hi (l >= 64).
struct lane_set {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool on(uint32_t lane) const {
    return lane < 64 ? ((lo >> lane) & 1u) != 0 : ((hi >> (lane - 64)) & 1u) != 0;
  }
  // One past the highest selected lane below `lanes`, 0 when none is.
  uint32_t end(uint32_t lanes) const {
    uint32_t last = 0;
    for (uint32_t lane = 0; lane < lanes; ++lane)
      if (on(lane)) last = lane + 1;
    return last;
  }
};

// The continuous mask form: the first `mask` lanes.
inline lane_set first_lanes(uint64_t mask) {
  return {mask >= 64 ? ~uint64_t{0} : (uint64_t{1} << mask) - 1,
          mask <= 64    ? 0
          : mask >= 128 ? ~uint64_t{0}
                        : (uint64_t{1} << (mask - 64)) - 1};
}

// The lane offsets (in bytes from the operand start) of repeat r, block j, element k.
inline uint64_t strided_offset(uint32_t r, uint32_t j, uint32_t k, uint32_t elem, uint16_t blk,
                               uint16_t rep) {
  return (uint64_t{r} * rep + uint64_t{j} * blk) * 32 + uint64_t{k} * elem;
}

template <typename T>
void copy_lanes(const LocalTensor<T>& dst, const LocalTensor<T>& src, lane_set mask,
                uint8_t repeats, const CopyRepeatParams& p, site_t site) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Copy: 16- or 32-bit element types only");
  constexpr uint32_t per_block = 32 / sizeof(T);
  const uint32_t last_lane = mask.end(8 * per_block);
  if (repeats == 0 || last_lane == 0) return;
  const uint32_t last_block = (last_lane - 1) / per_block;
  auto hull = [&](uint16_t blk, uint16_t rep) {
    return strided_offset(repeats - 1u, last_block, per_block, sizeof(T), blk, rep) / sizeof(T);
  };
  uint8_t* ptr[2];
  composite_call(aopt_sim::rt::vec_class::simple,
                 {writes(dst, hull(p.dstStride, p.dstRepeatSize)),
                  reads(src, hull(p.srcStride, p.srcRepeatSize))},
                 ptr, uint64_t{repeats} * 256, "Copy", site);
  for (uint32_t r = 0; r < repeats; ++r)
    for (uint32_t lane = 0; lane < last_lane; ++lane) {
      if (!mask.on(lane)) continue;
      const uint32_t j = lane / per_block;
      const uint32_t k = lane % per_block;
      std::memcpy(ptr[0] + strided_offset(r, j, k, sizeof(T), p.dstStride, p.dstRepeatSize),
                  ptr[1] + strided_offset(r, j, k, sizeof(T), p.srcStride, p.srcRepeatSize),
                  sizeof(T));
    }
}

}  // namespace detail

template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
          const uint8_t repeatTime, const CopyRepeatParams& repeatParams,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::copy_lanes(dst, src, detail::first_lanes(mask), repeatTime, repeatParams, site);
}
template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
          const uint8_t repeatTime, const CopyRepeatParams& repeatParams,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::copy_lanes(dst, src, {mask[0], mask[1]}, repeatTime, repeatParams, site);
}

// dst[i] = the element at src + srcBaseAddr + srcOffset[i] bytes, for i < count. The
// instruction's footprint is the whole source tensor (the offsets are data).
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
            const uint32_t count, detail::site_t site = detail::site_t(__builtin_LINE())) {
  const uint64_t src_bytes = uint64_t{src.GetSize()} * sizeof(T);
  uint8_t* p[3];
  detail::composite_call(aopt_sim::rt::vec_class::simple,
                         {detail::writes(dst, count), detail::reads(srcOffset, count, "srcOffset"),
                          detail::reads(src, src.GetSize())},
                         p, uint64_t{count} * sizeof(T), "Gather", site);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t off;
    std::memcpy(&off, p[1] + uint64_t{i} * 4, 4);
    if (uint64_t{srcBaseAddr} + off + sizeof(T) > src_bytes) {
      aopt_sim::rt::kernel_assert_failed(
          "Gather: srcBaseAddr + srcOffset[i] lies inside src (an offset points past the source "
          "tensor)",
          "Gather", site.line);
    }
    std::memcpy(p[0] + uint64_t{i} * sizeof(T), p[2] + srcBaseAddr + off, sizeof(T));
  }
}

namespace detail {

// Gather's repeat form: in repeat r, each lane the mask selects takes the element at src +
// srcBaseAddr + srcOffset[r * lanes + lane] bytes into dst lane r * dstRepStride blocks + lane
// (lanes = 256 bytes of T per repeat; the offsets of a repeat are consecutive, as its lanes).
template <typename T>
void gather_lanes(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  const LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr, lane_set mask,
                  uint8_t repeats, uint16_t dstRepStride, site_t site) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather: 16- or 32-bit element types only");
  constexpr uint32_t lanes = 256 / sizeof(T);
  const uint32_t last_lane = mask.end(lanes);
  if (repeats == 0 || last_lane == 0) return;
  const uint64_t dst_elems = (uint64_t{repeats - 1u} * dstRepStride * 32) / sizeof(T) + last_lane;
  const uint64_t offsets = uint64_t{repeats - 1u} * lanes + last_lane;
  const uint64_t src_bytes = uint64_t{src.GetSize()} * sizeof(T);
  uint8_t* p[3];
  composite_call(
      aopt_sim::rt::vec_class::simple,
      {writes(dst, dst_elems), reads(srcOffset, offsets, "srcOffset"), reads(src, src.GetSize())},
      p, uint64_t{repeats} * 256, "Gather", site);
  for (uint32_t r = 0; r < repeats; ++r)
    for (uint32_t lane = 0; lane < last_lane; ++lane) {
      if (!mask.on(lane)) continue;
      uint32_t off;
      std::memcpy(&off, p[1] + (uint64_t{r} * lanes + lane) * 4, 4);
      if (uint64_t{srcBaseAddr} + off + sizeof(T) > src_bytes) {
        aopt_sim::rt::kernel_assert_failed(
            "Gather: srcBaseAddr + srcOffset[i] lies inside src (an offset points past the "
            "source tensor)",
            "Gather", site.line);
      }
      std::memcpy(p[0] + uint64_t{r} * dstRepStride * 32 + uint64_t{lane} * sizeof(T),
                  p[2] + srcBaseAddr + off, sizeof(T));
    }
}

}  // namespace detail

// The repeat forms: the continuous mask (the first `mask` lanes of each repeat) and the bit mask.
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint64_t mask,
            const uint8_t repeatTime, const uint16_t dstRepStride,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::gather_lanes(dst, src, srcOffset, srcBaseAddr, detail::first_lanes(mask), repeatTime,
                       dstRepStride, site);
}
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
            const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstRepStride,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::gather_lanes(dst, src, srcOffset, srcBaseAddr, {mask[0], mask[1]}, repeatTime,
                       dstRepStride, site);
}

// Per repeat, 8 elements of src each fill one 32-byte block of dst.
template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
          const BrcbRepeatParams& repeatParams,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb: 16- or 32-bit element types only");
  if (repeatTime == 0) return;
  constexpr uint32_t per_block = 32 / sizeof(T);
  const uint16_t blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
  const uint64_t dst_elems = detail::strided_offset(repeatTime - 1u, 7, per_block, sizeof(T), blk,
                                                    repeatParams.dstRepStride) /
                             sizeof(T);
  uint8_t* p[2];
  detail::composite_call(aopt_sim::rt::vec_class::simple,
                         {detail::writes(dst, dst_elems), detail::reads(src0, 8u * repeatTime)}, p,
                         uint64_t{repeatTime} * 256, "Brcb", site);
  for (uint32_t r = 0; r < repeatTime; ++r)
    for (uint32_t j = 0; j < 8; ++j) {
      uint8_t* block =
          p[0] + detail::strided_offset(r, j, 0, sizeof(T), blk, repeatParams.dstRepStride);
      for (uint32_t k = 0; k < per_block; ++k)
        std::memcpy(block + k * sizeof(T), p[1] + (uint64_t{r} * 8 + j) * sizeof(T), sizeof(T));
    }
}

// dst[i] = firstValue + i for i < calCount.
template <typename T>
void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t calCount,
                    detail::site_t site = detail::site_t(__builtin_LINE())) {
  uint8_t* p[1];
  detail::composite_call(aopt_sim::rt::vec_class::simple, {detail::writes(dst, calCount)}, p,
                         uint64_t{calCount} * sizeof(T), "CreateVecIndex", site);
  const auto first = static_cast<detail::calc_t<T>>(firstValue);
  for (uint32_t i = 0; i < calCount; ++i)
    detail::store<T>(p[0], i,
                     static_cast<detail::calc_t<T>>(first + static_cast<detail::calc_t<T>>(i)));
}

namespace detail {

// The masked forms: lane l of repeat r (l counted over the repeat's 256 bytes) holds
// firstValue + r * lanes + l, written at the strided address; lanes the mask leaves off keep
// their contents.
template <typename T>
void vec_index_lanes(LocalTensor<T>& dst, const T& firstValue, lane_set mask, uint8_t repeats,
                     uint16_t dstBlkStride, uint8_t dstRepStride, site_t site) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                "CreateVecIndex: int16_t, half, int32_t or float elements only");
  constexpr uint32_t per_block = 32 / sizeof(T);
  constexpr uint32_t lanes = 8 * per_block;
  const uint32_t last_lane = mask.end(lanes);
  if (repeats == 0 || last_lane == 0) return;
  const uint16_t blk = dstBlkStride == 0 ? 1 : dstBlkStride;
  const uint64_t hull = strided_offset(repeats - 1u, (last_lane - 1) / per_block, per_block,
                                       sizeof(T), blk, dstRepStride) /
                        sizeof(T);
  uint8_t* ptr[1];
  composite_call(aopt_sim::rt::vec_class::simple, {writes(dst, hull)}, ptr, uint64_t{repeats} * 256,
                 "CreateVecIndex", site);
  const auto first = static_cast<calc_t<T>>(firstValue);
  for (uint32_t r = 0; r < repeats; ++r)
    for (uint32_t lane = 0; lane < last_lane; ++lane) {
      if (!mask.on(lane)) continue;
      const uint64_t at =
          strided_offset(r, lane / per_block, lane % per_block, sizeof(T), blk, dstRepStride);
      store<T>(ptr[0], at / sizeof(T),
               static_cast<calc_t<T>>(first + static_cast<calc_t<T>>(uint64_t{r} * lanes + lane)));
    }
}

}  // namespace detail

template <typename T>
void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask, uint8_t repeatTime,
                    uint16_t dstBlkStride, uint8_t dstRepStride,
                    detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::vec_index_lanes(dst, firstValue, detail::first_lanes(mask), repeatTime, dstBlkStride,
                          dstRepStride, site);
}
template <typename T>
void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, const uint64_t mask[],
                    uint8_t repeatTime, uint16_t dstBlkStride, uint8_t dstRepStride,
                    detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::vec_index_lanes(dst, firstValue, {mask[0], mask[1]}, repeatTime, dstBlkStride,
                          dstRepStride, site);
}

// The 16 x 16 matrix of two-byte elements at src, transposed into dst.
template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(sizeof(T) == 2, "Transpose: the 16 x 16 form takes two-byte elements");
  uint8_t* p[2];
  detail::composite_call(aopt_sim::rt::vec_class::simple,
                         {detail::writes(dst, 256), detail::reads(src, 256)}, p, 512, "Transpose",
                         site);
  uint8_t staged[512];
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 16; ++c)
      std::memcpy(staged + (c * 16 + r) * 2, p[1] + (r * 16 + c) * 2, 2);
  std::memcpy(p[0], staged, sizeof(staged));
}

// ---- Transpose, the enhanced form
// The documented transposeType values: ND2ND_B16, NCHW2NHWC and NHWC2NCHW transpose, NONE and
// the NZ and ND_ONLY types are reserved (refused here). Their numeric values are not documented.
enum class TransposeType : uint8_t {
  TRANSPOSE_TYPE_NONE,
  TRANSPOSE_NZ2ND_0213,
  TRANSPOSE_NZ2NZ_0213,
  TRANSPOSE_NZ2NZ_012_WITH_N,
  TRANSPOSE_NZ2ND_012_WITH_N,
  TRANSPOSE_NZ2ND_012_WITHOUT_N,
  TRANSPOSE_NZ2NZ_012_WITHOUT_N,
  TRANSPOSE_ND2ND_ONLY,
  TRANSPOSE_ND2ND_B16,
  TRANSPOSE_NCHW2NHWC,
  TRANSPOSE_NHWC2NCHW,
};

struct TransposeParamsExt {
  uint16_t nSize = 0;
  uint16_t cSize = 0;
  uint16_t hSize = 0;
  uint16_t wSize = 0;
  TransposeType transposeType = TransposeType::TRANSPOSE_TYPE_NONE;
};

// TRANSPOSE_ND2ND_B16: the 16 x 16 matrix of two-byte elements, as the basic form (dst may be
// src). TRANSPOSE_NCHW2NHWC / TRANSPOSE_NHWC2NCHW: nSize images of cSize x (hSize * wSize)
// elements of 1, 2 or 4 bytes, each image's channel axis moved last / first (dst must not overlap
// src, as documented). One V instruction over the bytes it writes, like the basic form: the
// library's own instruction sequence is not documented. The temporary buffer is not needed and
// left untouched.
template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<uint8_t>& sharedTmpBuffer,
               const TransposeParamsExt& transposeParams,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "Transpose: 1, 2 or 4-byte elements");
  const char* api = "Transpose";
  const TransposeType type = transposeParams.transposeType;
  if (type == TransposeType::TRANSPOSE_ND2ND_B16) {
    if constexpr (sizeof(T) == 2) {
      Transpose(dst, src, site);
      return;
    } else {
      aopt_sim::rt::kernel_assert_failed("TRANSPOSE_ND2ND_B16 takes two-byte elements", api,
                                         site.line);
    }
  }
  const bool to_nhwc = type == TransposeType::TRANSPOSE_NCHW2NHWC;
  if (!to_nhwc && type != TransposeType::TRANSPOSE_NHWC2NCHW)
    aopt_sim::rt::kernel_assert_failed(
        "transposeType is TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC or TRANSPOSE_NHWC2NCHW (the "
        "others are reserved)",
        api, site.line);
  const uint64_t images = transposeParams.nSize, channels = transposeParams.cSize;
  const uint64_t plane = uint64_t{transposeParams.hSize} * transposeParams.wSize;
  const uint64_t n = images * channels * plane;
  if (n == 0) return;
  uint8_t* p[2];
  detail::composite_call(aopt_sim::rt::vec_class::simple,
                         {detail::writes(dst, n), detail::reads(src, n)}, p, n * sizeof(T), api,
                         site);
  if (p[0] < p[1] + n * sizeof(T) && p[1] < p[0] + n * sizeof(T))
    aopt_sim::rt::kernel_assert_failed(
        "dst and src do not overlap (TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW)", api, site.line);
  for (uint64_t b = 0; b < images; ++b) {
    const uint64_t base = b * channels * plane;
    for (uint64_t c = 0; c < channels; ++c) {
      for (uint64_t i = 0; i < plane; ++i) {
        const uint64_t nchw = base + c * plane + i, nhwc = base + i * channels + c;
        std::memcpy(p[0] + (to_nhwc ? nhwc : nchw) * sizeof(T),
                    p[1] + (to_nhwc ? nchw : nhwc) * sizeof(T), sizeof(T));
      }
    }
  }
}

// ---- TransDataTo5HD
// ---------------------------------------------------------------------------
constexpr uint32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
  TransDataTo5HDParams() {}
  TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn,
                       const uint8_t repeatTimesIn, const uint16_t dstRepStrideIn,
                       const uint16_t srcRepStrideIn)
      : dstHighHalf(dstHighHalfIn),
        srcHighHalf(srcHighHalfIn),
        repeatTimes(repeatTimesIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  bool dstHighHalf = false;  // 8-bit types: write the high 16 bytes of each destination block
  bool srcHighHalf = false;  // 8-bit types: read the high 16 bytes of each source block
  uint8_t repeatTimes = 1;
  uint16_t dstRepStride = 0;  // 32-byte blocks between a list entry's repeats
  uint16_t srcRepStride = 0;
};

// Per repeat, element j of the 16 source blocks forms destination block j (16-bit types), blocks
// 2j and 2j + 1 (32-bit: sources 0..7, then 8..15) or half of block j (8-bit); the runtime moves
// the bytes, so the kernel passes tensors, never addresses.
template <typename T>
void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& nchwconvParams,
                    detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "TransDataTo5HD: 8, 16 or 32-bit elements");
  aopt_sim::rt::local_ref dst[NCHW_CONV_ADDR_LIST_SIZE];
  aopt_sim::rt::local_ref src[NCHW_CONV_ADDR_LIST_SIZE];
  for (uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
    dst[i] = dstList[i].aopt_ref();
    src[i] = srcList[i].aopt_ref();
  }
  aopt_sim::rt::vec_trans_data_5hd(sizeof(T), dst, src, nchwconvParams.dstHighHalf,
                                   nchwconvParams.srcHighHalf, nchwconvParams.repeatTimes,
                                   nchwconvParams.dstRepStride, nchwconvParams.srcRepStride, site);
}

}  // namespace AscendC
