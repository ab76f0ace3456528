// aopt simulator, kernel side: LayerNorm of the AscendC library (the form that outputs the
// normalised tensor, the mean and the variance), written from the public API documentation; its
// tiling on the host side is in aopt_sim/host_library_tiling.h.
//
// inputX is [B, S, H] (H 32-byte aligned), gamma and beta [H], outputMean and outputVariance
// [B, S]; over the first originalHLength elements of each row of H (all H when it is 0):
//   mean = sum(x) / H', variance = sum((x - mean)^2) / H',
//   output = (x - mean) / sqrt(variance + epsilon) * gamma + beta   (every element of the row).
// The shape comes from the LayerNormTiling GetLayerNormNDTilingInfo filled. half data is computed
// in float, as the library widens it.
//
// Traced as the documented V steps, each checked against its operands' buffers and priced by its
// op class over the data it touches in float width: the mean (reduce), the squared deviations
// (mul), the variance (reduce), the normalisation (div_transcendental: Adds, Ln, Muls, Exp) and
// the scale and shift by gamma and beta (mul). The temporary buffer is not needed and left
// untouched. The newer form with rstd output (LayerNormPara, LayerNormConfig) is not simulated.
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
void layer_norm_rows(const LocalTensor<T>& output, const LocalTensor<T>& mean,
                     const LocalTensor<T>& variance, const LocalTensor<T>& x,
                     const LocalTensor<T>& gamma, const LocalTensor<T>& beta, float epsilon,
                     const LayerNormTiling& tiling, site_t site) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "LayerNorm: half or float");
  const char* api = "LayerNorm";
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
  uint8_t* p[6] = {};
  // 1. the mean of each row.
  composite_call(vclass::reduce, {reads(x, n, "inputX"), writes(mean, rows, "outputMean")}, p, work,
                 api, site);
  const uint8_t* in = p[0];
  uint8_t* mean_at = p[1];
  // The result from the input as it is now: output may be the input (isReuseSource).
  std::vector<float> out(n), row_mean(rows), row_var(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    float total = 0;
    for (uint64_t c = 0; c < valid; ++c) total += static_cast<float>(load<T>(in, r * h + c));
    const float mu = total / static_cast<float>(valid);
    float squares = 0;
    for (uint64_t c = 0; c < valid; ++c) {
      const float d = static_cast<float>(load<T>(in, r * h + c)) - mu;
      squares += d * d;
    }
    row_mean[r] = mu;
    row_var[r] = squares / static_cast<float>(valid);
  }
  // 2. the squared deviations, 3. the variance of each row.
  composite_call(vclass::mul,
                 {writes(output, n, "output"), reads(x, n, "inputX"), reads(mean, rows, "mean")}, p,
                 work, api, site);
  uint8_t* out_at = p[0];
  composite_call(vclass::reduce,
                 {reads(output, n, "output"), writes(variance, rows, "outputVariance")}, p, work,
                 api, site);
  uint8_t* var_at = p[1];
  // 4. the normalisation, 5. the scale and shift.
  composite_call(vclass::div_transcendental,
                 {writes(output, n, "output"), reads(x, n, "inputX"), reads(mean, rows, "mean"),
                  reads(variance, rows, "variance")},
                 p, work, api, site);
  composite_call(vclass::mul,
                 {updates(output, n, "output"), reads(gamma, h, "gamma"), reads(beta, h, "beta")},
                 p, work, api, site);
  const uint8_t* gamma_at = p[1];
  const uint8_t* beta_at = p[2];
  for (uint64_t r = 0; r < rows; ++r) {
    const float scale = 1.0f / std::sqrt(row_var[r] + epsilon);
    for (uint64_t c = 0; c < h; ++c) {
      const float v = (static_cast<float>(load<T>(in, r * h + c)) - row_mean[r]) * scale;
      out[r * h + c] =
          v * static_cast<float>(load<T>(gamma_at, c)) + static_cast<float>(load<T>(beta_at, c));
    }
  }
  for (uint64_t i = 0; i < n; ++i) store<T>(out_at, i, static_cast<calc_t<T>>(out[i]));
  for (uint64_t r = 0; r < rows; ++r) {
    store<T>(mean_at, r, static_cast<calc_t<T>>(row_mean[r]));
    store<T>(var_at, r, static_cast<calc_t<T>>(row_var[r]));
  }
}

}  // namespace detail

template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               LayerNormTiling& tiling, detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::layer_norm_rows<T>(output, outputMean, outputVariance, inputX, gamma, beta,
                             static_cast<float>(epsilon), tiling, site);
}
// The same with the temporary buffer passed in (not needed: left untouched).
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
               LayerNormTiling& tiling, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  detail::layer_norm_rows<T>(output, outputMean, outputVariance, inputX, gamma, beta,
                             static_cast<float>(epsilon), tiling, site);
}

}  // namespace AscendC
