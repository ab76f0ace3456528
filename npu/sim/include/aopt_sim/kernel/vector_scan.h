// aopt simulator, kernel side: pairwise and running sums.
//   PairReduceSum (a1+a2, a3+a4, ... per repeat; continuous or bit mask; the destination
//   repeat stride is in units of 128 bytes, half a repeat), CumSum (running sums along the last
//   axis, or the first axis, of an outter x inner matrix; optionally the last row).
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/composite.h"
#include "aopt_sim/kernel/vector_ops.h"

namespace AscendC {

struct CumSumConfig {
  bool isLastAxis{true};
  bool isReuseSource{false};
  bool outputLastRow{false};
};
constexpr CumSumConfig defaultCumSumConfig = {true, false, false};

struct CumSumInfo {
  uint32_t outter{0};
  uint32_t inner{0};
};

namespace detail {

template <typename T>
void pair_reduce_sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeats,
                     uint64_t lo, uint64_t hi, int32_t dst_rep, int32_t src_blk, int32_t src_rep,
                     site_t site) {
  constexpr uint32_t per_block = 32 / sizeof(T);
  constexpr uint32_t lanes = 8 * per_block;
  if (repeats <= 0) return;
  auto active = [&](uint32_t lane) {
    return lane < 64 ? ((lo >> lane) & 1u) != 0 : ((hi >> (lane - 64)) & 1u) != 0;
  };
  const auto r_last = static_cast<uint32_t>(repeats - 1);
  const uint64_t src_elems =
      strided_offset(r_last, 7, per_block, sizeof(T), static_cast<uint16_t>(src_blk),
                     static_cast<uint16_t>(src_rep)) /
      sizeof(T);
  const uint64_t dst_elems = (uint64_t{r_last} * dst_rep * 128 + 128) / sizeof(T);
  uint8_t* p[2];
  composite_call(aopt_sim::rt::vec_class::reduce, {writes(dst, dst_elems), reads(src, src_elems)},
                 p, uint64_t(repeats) * 256, "PairReduceSum", site);
  for (uint32_t r = 0; r <= r_last; ++r)
    for (uint32_t pair = 0; pair < lanes / 2; ++pair) {
      calc_t<T> sum = 0;
      bool any = false;
      for (uint32_t lane = 2 * pair; lane < 2 * pair + 2; ++lane) {
        if (!active(lane)) continue;
        any = true;
        const uint64_t at =
            strided_offset(r, lane / per_block, lane % per_block, sizeof(T),
                           static_cast<uint16_t>(src_blk), static_cast<uint16_t>(src_rep));
        sum = static_cast<calc_t<T>>(sum + load<T>(p[1], at / sizeof(T)));
      }
      if (any) store<T>(p[0], (uint64_t{r} * dst_rep * 128) / sizeof(T) + pair, sum);
    }
}

}  // namespace detail

template <typename T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                   const int32_t srcRepStride,
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  const auto m = static_cast<uint64_t>(mask < 0 ? 0 : mask);
  const uint64_t lo = m >= 64 ? ~uint64_t{0} : (uint64_t{1} << m) - 1;
  const uint64_t hi = m <= 64 ? 0 : m >= 128 ? ~uint64_t{0} : (uint64_t{1} << (m - 64)) - 1;
  detail::pair_reduce_sum(dst, src, repeatTime, lo, hi, dstRepStride, srcBlkStride, srcRepStride,
                          site);
}
template <typename T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
                   const int32_t srcRepStride,
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::pair_reduce_sum(dst, src, repeatTime, mask[0], mask[1], dstRepStride, srcBlkStride,
                          srcRepStride, site);
}

template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor,
            const LocalTensor<T>& srcTensor, const CumSumInfo& cumSumInfo,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  const uint64_t rows = cumSumInfo.outter;
  const uint64_t cols = cumSumInfo.inner;
  const uint64_t n = rows * cols;
  if (n == 0) return;
  uint8_t* p[3];
  if (config.outputLastRow) {
    detail::composite_call(aopt_sim::rt::vec_class::reduce,
                           {detail::writes(dstTensor, n), detail::reads(srcTensor, n),
                            detail::writes(lastRowTensor, cols, "lastRowTensor")},
                           p, n * sizeof(T) * 2, "CumSum", site);
  } else {
    detail::composite_call(aopt_sim::rt::vec_class::reduce,
                           {detail::writes(dstTensor, n), detail::reads(srcTensor, n)}, p,
                           n * sizeof(T) * 2, "CumSum", site);
  }
  using C = detail::calc_t<T>;
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      const uint64_t i = r * cols + c;
      C v = detail::load<T>(p[1], i);
      if (config.isLastAxis && c > 0) v = static_cast<C>(v + detail::load<T>(p[0], i - 1));
      if (!config.isLastAxis && r > 0) v = static_cast<C>(v + detail::load<T>(p[0], i - cols));
      detail::store<T>(p[0], i, v);
    }
  if (config.outputLastRow)
    for (uint64_t c = 0; c < cols; ++c)
      detail::store<T>(p[2], c, detail::load<T>(p[0], (rows - 1) * cols + c));
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor,
            const LocalTensor<T>& srcTensor, LocalTensor<uint8_t>&, const CumSumInfo& cumSumInfo,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  CumSum<T, config>(dstTensor, lastRowTensor, srcTensor, cumSumInfo, site);
}

}  // namespace AscendC
