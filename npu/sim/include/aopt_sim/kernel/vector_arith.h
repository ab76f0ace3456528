// aopt simulator, kernel side: element-wise APIs of the AscendC math library beyond the basic
// vector instructions, count form (`Op(dst, src..., calCount)`), each one V instruction:
//   Neg, Log (natural logarithm, like Ln), Power (tensor^tensor, tensor^scalar, scalar^tensor),
//   Xor (integers), ClampMax/ClampMin (dst = min/max(src, scalar)),
//   FusedMulAdd (dst = src0 * dst + src1), MulAddDst (dst = src0 * src1 + dst) (these two also
//   in the mask/repeat forms with BinaryRepeatParams, like Add),
//   and the Exp/Ln/Log overloads with extra template parameters (Taylor level, isReuseSource)
//   and a shared temporary buffer, which compute the same values.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aopt_sim/kernel/composite.h"
#include "aopt_sim/kernel/vector_ops.h"

namespace AscendC {
namespace detail {

using vclass = aopt_sim::rt::vec_class;

// dst[i] = f(src[i]) over `count` elements.
template <typename T, typename F>
void map_unary(vclass cls, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
               F f, const char* api, site_t site) {
  uint8_t* p[2];
  composite_call(cls, {writes(dst, count), reads(src, count)}, p, uint64_t{count} * sizeof(T), api,
                 site);
  for (uint32_t i = 0; i < count; ++i) store<T>(p[0], i, f(load<T>(p[1], i)));
}

// dst[i] = f(a[i], b[i]) over `count` elements (dst may alias a or b: each element is read
// before it is written).
template <typename T, typename F>
void map_binary(vclass cls, const LocalTensor<T>& dst, const LocalTensor<T>& a,
                const LocalTensor<T>& b, uint32_t count, F f, const char* api, site_t site) {
  uint8_t* p[3];
  composite_call(cls, {writes(dst, count), reads(a, count, "src0"), reads(b, count, "src1")}, p,
                 uint64_t{count} * sizeof(T), api, site);
  for (uint32_t i = 0; i < count; ++i) store<T>(p[0], i, f(load<T>(p[1], i), load<T>(p[2], i)));
}

template <typename T>
calc_t<T> power(calc_t<T> base, calc_t<T> exponent) {
  if constexpr (std::is_integral_v<T>) {
    if (exponent < 0) return base == 1 ? 1 : 0;
    calc_t<T> r = 1;
    for (calc_t<T> e = 0; e < exponent; ++e) r = static_cast<calc_t<T>>(r * base);
    return r;
  } else {
    return static_cast<calc_t<T>>(std::pow(static_cast<float>(base), static_cast<float>(exponent)));
  }
}

}  // namespace detail

template <typename T>
void Neg(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::map_unary(
      detail::vclass::simple, dst, src, calCount,
      [](detail::calc_t<T> x) { return static_cast<detail::calc_t<T>>(-x); }, "Neg", site);
}

template <typename T, bool isReuseSource = false>
void Log(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::map_unary(
      detail::vclass::div_transcendental, dst, src, calCount,
      [](detail::calc_t<T> x) { return std::log(x); }, "Log", site);
}
template <typename T, bool isReuseSource = false>
void Log(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
         const uint32_t calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  Log<T, isReuseSource>(dst, src, calCount, site);
}

// Ln and Exp with the math library's extra template parameters (the plain forms are in
// vector_ops.h); the simulator computes them exactly, whatever the Taylor level.
template <typename T, bool isReuseSource>
void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,
        detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::map_unary(
      detail::vclass::div_transcendental, dst, src, calCount,
      [](detail::calc_t<T> x) { return std::log(x); }, "Ln", site);
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::map_unary(
      detail::vclass::div_transcendental, dst, src, calCount,
      [](detail::calc_t<T> x) { return std::exp(x); }, "Exp", site);
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
         const uint32_t calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  Exp<T, taylorExpandLevel, isReuseSource>(dst, src, calCount, site);
}

template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const LocalTensor<T>& base, const LocalTensor<T>& exponent,
           const uint32_t calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::map_binary(detail::vclass::div_transcendental, dst, base, exponent, calCount,
                     &detail::power<T>, "Power", site);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const LocalTensor<T>& base,
           const detail::scalar_t<T>& exponent, const uint32_t calCount,
           detail::site_t site = detail::site_t(__builtin_LINE())) {
  const auto e = static_cast<detail::calc_t<T>>(exponent);
  detail::map_unary(
      detail::vclass::div_transcendental, dst, base, calCount,
      [e](detail::calc_t<T> x) { return detail::power<T>(x, e); }, "Power", site);
}
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const detail::scalar_t<T>& base,
           const LocalTensor<T>& exponent, const uint32_t calCount,
           detail::site_t site = detail::site_t(__builtin_LINE())) {
  const auto b = static_cast<detail::calc_t<T>>(base);
  detail::map_unary(
      detail::vclass::div_transcendental, dst, exponent, calCount,
      [b](detail::calc_t<T> x) { return detail::power<T>(b, x); }, "Power", site);
}

template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const uint32_t calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_integral_v<T>, "Xor: integer tensors only (int16_t, uint16_t, ...)");
  detail::map_binary(
      detail::vclass::simple, dst, src0, src1, calCount,
      [](T a, T b) { return static_cast<T>(a ^ b); }, "Xor", site);
}
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<uint8_t>&, const uint32_t calCount,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  Xor<T, isReuseSource>(dst, src0, src1, calCount, site);
}

template <typename T, bool isReuseSource = false>
void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const detail::scalar_t<T> scalar, const uint32_t calCount,
              detail::site_t site = detail::site_t(__builtin_LINE())) {
  const auto s = static_cast<detail::calc_t<T>>(scalar);
  detail::map_unary(
      detail::vclass::simple, dst, src, calCount,
      [s](detail::calc_t<T> x) { return x > s ? s : x; }, "ClampMax", site);
}
template <typename T, bool isReuseSource = false>
void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
              const detail::scalar_t<T> scalar, const uint32_t calCount,
              detail::site_t site = detail::site_t(__builtin_LINE())) {
  ClampMax<T, isReuseSource>(dst, src, scalar, calCount, site);
}
template <typename T, bool isReuseSource = false>
void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const detail::scalar_t<T> scalar, const uint32_t calCount,
              detail::site_t site = detail::site_t(__builtin_LINE())) {
  const auto s = static_cast<detail::calc_t<T>>(scalar);
  detail::map_unary(
      detail::vclass::simple, dst, src, calCount,
      [s](detail::calc_t<T> x) { return x < s ? s : x; }, "ClampMin", site);
}
template <typename T, bool isReuseSource = false>
void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
              const detail::scalar_t<T> scalar, const uint32_t calCount,
              detail::site_t site = detail::site_t(__builtin_LINE())) {
  ClampMin<T, isReuseSource>(dst, src, scalar, calCount, site);
}

template <typename T>
void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                 const int32_t& calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_mul_add(true, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(), src1.aopt_ref(),
                            detail::count_shape(calCount), "FusedMulAdd", site);
}
template <typename T, bool isSetMask = true>
void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                 uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& params,
                 detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_mul_add(true, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(), src1.aopt_ref(),
                            detail::with(s, params), "FusedMulAdd", site);
}
template <typename T, bool isSetMask = true>
void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                 const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& params,
                 detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_mul_add(true, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(), src1.aopt_ref(),
                            detail::with(s, params), "FusedMulAdd", site);
}

template <typename T, typename U = T>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
               const int32_t& calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, U>, "MulAddDst: the simulator supports equal types only");
  aopt_sim::rt::vec_mul_add(false, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src1.aopt_ref(), detail::count_shape(calCount), "MulAddDst", site);
}
template <typename T, typename U = T, bool isSetMask = true>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
               uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& params,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, U>, "MulAddDst: the simulator supports equal types only");
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_mul_add(false, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src1.aopt_ref(), detail::with(s, params), "MulAddDst", site);
}
template <typename T, typename U = T, bool isSetMask = true>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
               const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& params,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, U>, "MulAddDst: the simulator supports equal types only");
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_mul_add(false, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src1.aopt_ref(), detail::with(s, params), "MulAddDst", site);
}

}  // namespace AscendC
