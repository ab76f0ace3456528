#include "tolerance_scan.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "element_codec.hpp"

namespace aopt::sim {
namespace {

#if defined(__x86_64__)

// The scalar pass's test on four doubles: |a - e| <= atol + rtol * |e| and |e| <= DBL_MAX, as a
// lane mask (NaN compares false, as in the scalar pass).
__attribute__((target("avx2"))) inline __m256d within_mask(__m256d a, __m256d e, __m256d atol,
                                                           __m256d rtol) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d abs_diff = _mm256_andnot_pd(sign, _mm256_sub_pd(a, e));
  const __m256d abs_e = _mm256_andnot_pd(sign, e);
  const __m256d bound = _mm256_add_pd(atol, _mm256_mul_pd(rtol, abs_e));
  const __m256d within = _mm256_cmp_pd(abs_diff, bound, _CMP_LE_OQ);
  const __m256d finite = _mm256_cmp_pd(abs_e, _mm256_set1_pd(DBL_MAX), _CMP_LE_OQ);
  return _mm256_and_pd(within, finite);
}

// Eight floats against eight expected values.
__attribute__((target("avx2"))) inline bool eight_within(__m256 values, const double* e,
                                                         __m256d atol, __m256d rtol) {
  const __m256d low = _mm256_cvtps_pd(_mm256_castps256_ps128(values));
  const __m256d high = _mm256_cvtps_pd(_mm256_extractf128_ps(values, 1));
  const __m256d ok = _mm256_and_pd(within_mask(low, _mm256_loadu_pd(e), atol, rtol),
                                   within_mask(high, _mm256_loadu_pd(e + 4), atol, rtol));
  return _mm256_movemask_pd(ok) == 0xf;
}

bool scalar_within(double a, double e, double atol, double rtol) {
  const bool within = std::fabs(a - e) <= atol + rtol * std::fabs(e);
  const bool finite = std::fabs(e) <= DBL_MAX;
  return within && finite;
}

// Eight elements of `type` at p, as floats.
template <npu::dtype type>
__attribute__((target("avx2,f16c"))) inline __m256 load_eight(const uint8_t* p) {
  const auto* raw = reinterpret_cast<const __m128i*>(p);
  if constexpr (type == npu::dtype::float16) {
    return _mm256_cvtph_ps(_mm_loadu_si128(raw));
  } else if constexpr (type == npu::dtype::bfloat16) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(raw)), 16));
  } else {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
  }
}

template <npu::dtype type>
__attribute__((target("avx2,f16c"))) bool scan(const uint8_t* actual, const double* expected,
                                               uint64_t n, double atol, double rtol) {
  const uint32_t size = npu::dtype_size(type);
  const __m256d atol4 = _mm256_set1_pd(atol);
  const __m256d rtol4 = _mm256_set1_pd(rtol);
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (!eight_within(load_eight<type>(actual + i * size), expected + i, atol4, rtol4))
      return false;
  }
  for (; i < n; ++i) {
    if (!scalar_within(decode_element(actual + i * size, type), expected[i], atol, rtol))
      return false;
  }
  return true;
}

bool has_avx2_f16c() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}

#endif

}  // namespace

std::optional<bool> all_within_vectorised(npu::dtype type, const uint8_t* actual,
                                          const double* expected, uint64_t n, double atol,
                                          double rtol) {
#if defined(__x86_64__)
  if (!has_avx2_f16c()) return std::nullopt;
  switch (type) {
    case npu::dtype::float16:
      return scan<npu::dtype::float16>(actual, expected, n, atol, rtol);
    case npu::dtype::bfloat16:
      return scan<npu::dtype::bfloat16>(actual, expected, n, atol, rtol);
    case npu::dtype::float32:
      return scan<npu::dtype::float32>(actual, expected, n, atol, rtol);
    default:
      return std::nullopt;
  }
#else
  (void)type;
  (void)actual;
  (void)expected;
  (void)n;
  (void)atol;
  (void)rtol;
  return std::nullopt;
#endif
}

}  // namespace aopt::sim
