// aopt simulator, kernel side: RmsNorm of the AscendC library, written from the public API
// documentation; its tiling on the host side is in aopt_sim/host_library_tiling.h.
//
// srcLocal and dstLocal are [B, S, H] (H 32-byte aligned), gamma [H]; over the first
// originalHLength elements of each row of H (all H when it is 0):
//   rstd = 1 / sqrt(sum(x^2) / H' + epsilon),   dst = x * rstd * gamma   (every element of the
//   row).
// The shape comes from the RmsNormTiling GetRmsNormTilingInfo filled. half data is computed in
// float, as the library widens it.
//
// Traced as the documented V steps, each checked against its operands' buffers and priced by its
// op class over the data it touches in float width: the squares (mul), their row sums (reduce),
// the normalisation by rstd (div_transcendental: Adds, Rsqrt, Mul) and the scale by gamma (mul).
// The temporary buffer is not needed and left untouched; isBasicBlock changes no result.
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

namespace detail {

template <typename T>
void rms_norm_rows(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<T>& gamma, float epsilon, const RmsNormTiling& tiling,
                   site_t site) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "RmsNorm: half or float");
  const char* api = "RmsNorm";
  const uint64_t rows = uint64_t{tiling.bLength} * tiling.sLength;
  const uint64_t h = tiling.hLength;
  const uint64_t valid =
      tiling.originalHLength != 0 && tiling.originalHLength < h ? tiling.originalHLength : h;
  if (h * sizeof(T) % 32 != 0)
    aopt_sim::rt::kernel_assert_failed("the last axis (hLength) is 32-byte aligned", api,
                                       site.line);
  const uint64_t n = rows * h;
  if (n == 0) return;
  const uint64_t work = n * sizeof(float);
  uint8_t* p[3] = {};
  // 1. the squares, 2. their sum per row.
  composite_call(vclass::mul, {reads(src, n, "srcLocal"), writes(dst, n, "dstLocal")}, p, work, api,
                 site);
  const uint8_t* in = p[0];
  uint8_t* out_at = p[1];
  composite_call(vclass::reduce, {reads(dst, n, "dstLocal")}, p, work, api, site);
  // 3. the normalisation by each row's rstd, 4. the scale by gamma.
  composite_call(vclass::div_transcendental,
                 {writes(dst, n, "dstLocal"), reads(src, n, "srcLocal")}, p, work, api, site);
  composite_call(vclass::mul, {updates(dst, n, "dstLocal"), reads(gamma, h, "gammaLocal")}, p, work,
                 api, site);
  const uint8_t* gamma_at = p[1];
  // Every element is computed from the source before any is stored: dst may be src.
  std::vector<float> out(n);
  for (uint64_t r = 0; r < rows; ++r) {
    float squares = 0;
    for (uint64_t c = 0; c < valid; ++c) {
      const float v = static_cast<float>(load<T>(in, r * h + c));
      squares += v * v;
    }
    const float rstd = 1.0f / std::sqrt(squares / static_cast<float>(valid) + epsilon);
    for (uint64_t c = 0; c < h; ++c)
      out[r * h + c] = static_cast<float>(load<T>(in, r * h + c)) * rstd *
                       static_cast<float>(load<T>(gamma_at, c));
  }
  for (uint64_t i = 0; i < n; ++i) store<T>(out_at, i, static_cast<calc_t<T>>(out[i]));
}

}  // namespace detail

template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<T>& gammaLocal, const T epsilon, const RmsNormTiling& tiling,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::rms_norm_rows<T>(dstLocal, srcLocal, gammaLocal, static_cast<float>(epsilon), tiling,
                           site);
}
// The same with the temporary buffer passed in (not needed: left untouched).
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
             const T epsilon, const RmsNormTiling& tiling,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  detail::rms_norm_rows<T>(dstLocal, srcLocal, gammaLocal, static_cast<float>(epsilon), tiling,
                           site);
}

}  // namespace AscendC
