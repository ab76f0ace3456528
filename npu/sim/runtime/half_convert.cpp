#include "half_convert.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernel_numeric.hpp"

namespace aopt::sim::kernel {
namespace {

void halves_to_floats_scalar(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

void floats_to_halves_scalar(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}

#if defined(__x86_64__)
__attribute__((target("avx2,f16c"))) void halves_to_floats_f16c(const uint16_t* src, float* dst,
                                                                size_t n) {
  const __m128i magnitude_bits = _mm_set1_epi16(0x7fff);
  const __m128i infinity = _mm_set1_epi16(0x7c00);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    // A magnitude above infinity's is a NaN (a signed compare: magnitudes are below 0x8000).
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, magnitude_bits), infinity);
    if (!_mm_testz_si128(nan, nan)) {
      halves_to_floats_scalar(src + i, dst + i, 8);
      continue;
    }
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  halves_to_floats_scalar(src + i, dst + i, n - i);
}

__attribute__((target("avx2,f16c"))) void floats_to_halves_f16c(const float* src, uint16_t* dst,
                                                                size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) != 0) {
      floats_to_halves_scalar(src + i, dst + i, 8);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  floats_to_halves_scalar(src + i, dst + i, n - i);
}

bool host_has_f16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has;
}
#endif

}  // namespace

void halves_to_floats(const uint16_t* src, float* dst, size_t n) {
#if defined(__x86_64__)
  if (host_has_f16c()) return halves_to_floats_f16c(src, dst, n);
#endif
  halves_to_floats_scalar(src, dst, n);
}

void floats_to_halves(const float* src, uint16_t* dst, size_t n) {
#if defined(__x86_64__)
  if (host_has_f16c()) return floats_to_halves_f16c(src, dst, n);
#endif
  floats_to_halves_scalar(src, dst, n);
}

}  // namespace aopt::sim::kernel
