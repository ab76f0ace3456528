// aopt simulator, kernel side: the SoftMax activations of the AscendC library, written from the
// public API documentation (SoftMax, SimpleSoftMax; their tiling on the host side is in
// aopt_sim/host_library_tiling.h).
//
// The source is an ND tensor viewed as [m, k] (m the product of the leading axes, k the last
// axis, 32-byte aligned); each row is normalised on its own:
//   SoftMax        max = rowmax(src); dst = exp(src - max) / rowsum(exp(src - max)); the row's
//                  max and sum are written to maxTensor and sumTensor, each row one 32-byte block
//                  holding the value in every element ([m, 8] for float, [m, 16] for half);
//   SimpleSoftMax  dst = exp(src - inMax) / inSum, with the max and sum given in that layout.
// The shape comes from softmaxShapeInfo when it names one (srcM and srcK non-zero), else from the
// tiling SoftMaxTilingFunc filled; oriSrcK < srcK (a row padded to 32 bytes) reduces over the
// first oriSrcK elements only. half data is computed in float (as the library widens it); the
// mixed form takes half data with float max and sum.
//
// Each call is traced as the V instructions the documentation lists, each checked against its
// operands' buffers and priced by its op class over the row data it touches (in float width, the
// width it is computed in): the row max (reduce), the subtraction (simple), exp
// (div_transcendental), the row sum (reduce) and the division (div_transcendental); SimpleSoftMax
// the last three but the sum. The temporary buffer (sharedTmpBuffer or the framework's) is not
// needed and left untouched. The NZ data format (isDataFormatNZ) is not simulated: refused at
// compile time.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "aopt_sim/kernel/composite.h"
#include "aopt_sim/kernel/vector_arith.h"
#include "aopt_sim/kernel/vector_ops.h"
#include "aopt_sim/library_tiling.h"

namespace AscendC {

struct SoftMaxShapeInfo {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
};

struct SoftmaxConfig {
  bool isCheckTiling = true;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
};

inline constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0};

namespace detail {

// The [m, k] view of a SoftMax call and the row length its reductions run over.
struct softmax_shape {
  uint64_t m = 0;
  uint64_t k = 0;
  uint64_t valid_k = 0;
};

template <typename T>
softmax_shape softmax_shape_of(const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info,
                               const char* api, site_t site) {
  softmax_shape s;
  const bool given = info.srcM != 0 && info.srcK != 0;
  s.m = given ? info.srcM : tiling.srcM;
  s.k = given ? info.srcK : tiling.srcK;
  s.valid_k = given && info.oriSrcK != 0 && info.oriSrcK < info.srcK ? info.oriSrcK : s.k;
  if (s.k * sizeof(T) % 32 != 0)
    aopt_sim::rt::kernel_assert_failed("the last axis (srcK) is 32-byte aligned", api, site.line);
  return s;
}

template <typename T>
constexpr uint64_t block_elements() {
  return 32 / sizeof(T);
}

// SoftMax over the rows of `src` into `dst` (T: half or float) with the row max and sum into
// `max` and `sum` (U: T or float) when given. The trace: the five documented steps.
template <typename T, typename U>
void softmax_rows(const LocalTensor<T>& dst, const LocalTensor<U>* sum, const LocalTensor<U>* max,
                  const LocalTensor<T>& src, const softmax_shape& s, const char* api, site_t site) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "SoftMax: half or float");
  static_assert(std::is_same_v<U, float> || std::is_same_v<U, T>,
                "SoftMax: max and sum of the data's type, or float for half data");
  const uint64_t n = s.m * s.k;
  if (n == 0) return;
  const uint64_t stats = s.m * block_elements<U>();
  const uint64_t work = n * sizeof(float);  // computed in float
  uint8_t* p[3] = {};
  // 1. the row max.
  if (max != nullptr)
    composite_call(vclass::reduce, {reads(src, n, "src"), writes(*max, stats, "max")}, p, work, api,
                   site);
  else
    composite_call(vclass::reduce, {reads(src, n, "src")}, p, work, api, site);
  const uint8_t* in = p[0];
  uint8_t* max_at = max != nullptr ? p[1] : nullptr;
  // The result from the source as it is now: dst may be the source (isReuseSource).
  std::vector<float> out(n);
  std::vector<float> row_max(s.m), row_sum(s.m);
  for (uint64_t r = 0; r < s.m; ++r) {
    float mx = -INFINITY;
    for (uint64_t c = 0; c < s.valid_k; ++c) mx = std::fmax(mx, load<T>(in, r * s.k + c));
    float total = 0;
    for (uint64_t c = 0; c < s.k; ++c) {
      const float e = std::exp(static_cast<float>(load<T>(in, r * s.k + c)) - mx);
      out[r * s.k + c] = e;
      if (c < s.valid_k) total += e;
    }
    for (uint64_t c = 0; c < s.k; ++c) out[r * s.k + c] /= total;
    row_max[r] = mx;
    row_sum[r] = total;
  }
  // 2. src - max, 3. exp.
  if (max != nullptr)
    composite_call(vclass::simple,
                   {writes(dst, n, "dst"), reads(src, n, "src"), reads(*max, stats, "max")}, p,
                   work, api, site);
  else
    composite_call(vclass::simple, {writes(dst, n, "dst"), reads(src, n, "src")}, p, work, api,
                   site);
  uint8_t* dst_at = p[0];
  composite_call(vclass::div_transcendental, {updates(dst, n, "dst")}, p, work, api, site);
  // 4. the row sum, 5. the division.
  if (sum != nullptr) {
    composite_call(vclass::reduce, {reads(dst, n, "dst"), writes(*sum, stats, "sum")}, p, work, api,
                   site);
  } else {
    composite_call(vclass::reduce, {reads(dst, n, "dst")}, p, work, api, site);
  }
  uint8_t* sum_at = sum != nullptr ? p[1] : nullptr;
  if (sum != nullptr)
    composite_call(vclass::div_transcendental, {updates(dst, n, "dst"), reads(*sum, stats, "sum")},
                   p, work, api, site);
  else
    composite_call(vclass::div_transcendental, {updates(dst, n, "dst")}, p, work, api, site);
  for (uint64_t i = 0; i < n; ++i) store<T>(dst_at, i, static_cast<calc_t<T>>(out[i]));
  for (uint64_t r = 0; r < s.m; ++r) {
    for (uint64_t b = 0; b < block_elements<U>(); ++b) {
      const uint64_t at = r * block_elements<U>() + b;
      if (max_at != nullptr) store<U>(max_at, at, static_cast<calc_t<U>>(row_max[r]));
      if (sum_at != nullptr) store<U>(sum_at, at, static_cast<calc_t<U>>(row_sum[r]));
    }
  }
}

// dst = exp(src - inMax) / inSum per row, the max and sum one 32-byte block per row.
template <typename T, typename U>
void simple_softmax_rows(const LocalTensor<T>& dst, const LocalTensor<U>& in_sum,
                         const LocalTensor<U>& in_max, const LocalTensor<T>& src,
                         const softmax_shape& s, site_t site) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "SimpleSoftMax: half or float");
  static_assert(std::is_same_v<U, float> || std::is_same_v<U, T>,
                "SimpleSoftMax: max and sum of the data's type, or float for half data");
  const uint64_t n = s.m * s.k;
  if (n == 0) return;
  const uint64_t stats = s.m * block_elements<U>();
  const uint64_t work = n * sizeof(float);
  uint8_t* p[3] = {};
  composite_call(vclass::simple,
                 {writes(dst, n, "dst"), reads(src, n, "src"), reads(in_max, stats, "inMax")}, p,
                 work, "SimpleSoftMax", site);
  uint8_t* dst_at = p[0];
  std::vector<float> out(n);
  for (uint64_t r = 0; r < s.m; ++r) {
    const float mx = load<U>(p[2], r * block_elements<U>());
    for (uint64_t c = 0; c < s.k; ++c)
      out[r * s.k + c] = std::exp(static_cast<float>(load<T>(p[1], r * s.k + c)) - mx);
  }
  composite_call(vclass::div_transcendental, {updates(dst, n, "dst")}, p, work, "SimpleSoftMax",
                 site);
  composite_call(vclass::div_transcendental,
                 {updates(dst, n, "dst"), reads(in_sum, stats, "inSum")}, p, work, "SimpleSoftMax",
                 site);
  for (uint64_t r = 0; r < s.m; ++r) {
    const float total = load<U>(p[1], r * block_elements<U>());
    for (uint64_t c = 0; c < s.k; ++c) out[r * s.k + c] /= total;
  }
  for (uint64_t i = 0; i < n; ++i) store<T>(dst_at, i, static_cast<calc_t<T>>(out[i]));
}

}  // namespace detail

// ---- SoftMax ---------------------------------------------------------------------------------
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
             const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
             const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(!isDataFormatNZ, "SoftMax: the NZ data format is not simulated (ND only)");
  detail::softmax_rows<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor,
                             detail::softmax_shape_of<T>(tiling, softmaxShapeInfo, "SoftMax", site),
                             "SoftMax", site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
             const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
             const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(!isDataFormatNZ, "SoftMax: the NZ data format is not simulated (ND only)");
  detail::softmax_rows<half, float>(
      dstTensor, &sumTensor, &maxTensor, srcTensor,
      detail::softmax_shape_of<half>(tiling, softmaxShapeInfo, "SoftMax", site), "SoftMax", site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::softmax_rows<T, T>(dstTensor, nullptr, nullptr, srcTensor,
                             detail::softmax_shape_of<T>(tiling, softmaxShapeInfo, "SoftMax", site),
                             "SoftMax", site);
}
// The same with the temporary buffer passed in (not needed: left untouched).
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
             const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo, site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
             const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo, site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  SoftMax<T, isReuseSource, isBasicBlock, config>(dstTensor, srcTensor, tiling, softmaxShapeInfo,
                                                  site);
}

// ---- SimpleSoftMax ---------------------------------------------------------------------------
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                   const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(!isDataFormatNZ, "SimpleSoftMax: the NZ data format is not simulated (ND only)");
  detail::simple_softmax_rows<T, T>(
      dstTensor, inSumTensor, inMaxTensor, srcTensor,
      detail::softmax_shape_of<T>(tiling, softmaxShapeInfo, "SimpleSoftMax", site), site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                   const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                   const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(!isDataFormatNZ, "SimpleSoftMax: the NZ data format is not simulated (ND only)");
  detail::simple_softmax_rows<half, float>(
      dstTensor, inSumTensor, inMaxTensor, srcTensor,
      detail::softmax_shape_of<half>(tiling, softmaxShapeInfo, "SimpleSoftMax", site), site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  SimpleSoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dstTensor, inSumTensor, inMaxTensor, srcTensor, tiling, softmaxShapeInfo, site);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                   const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = SoftMaxShapeInfo(),
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  SimpleSoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dstTensor, inSumTensor, inMaxTensor, srcTensor, tiling, softmaxShapeInfo, site);
}

}  // namespace AscendC
