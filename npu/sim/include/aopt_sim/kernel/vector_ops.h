// aopt simulator, kernel side: element-wise vector instructions (binary, tensor-scalar, unary,
// Duplicate, Cast, Axpy, activations) and the vector mask registers.
//
// Each instruction comes in a count form `Op(dst, src..., count)` and in the mask/repeat forms
// `Op<T, isSetMask>(dst, src..., mask, repeatTimes, repeatParams)` with a continuous mask
// (`uint64_t`) or a bit mask (`uint64_t[2]`). With isSetMask=false the mask comes from
// SetVectorMask (in counter mode, SetMaskCount, it is the element count).
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {

namespace detail {

// Keeps a scalar argument out of template deduction, so `Muls(halfDst, halfSrc, 2.0f, n)`
// converts the scalar to the tensors' type.
template <typename T>
struct identity {
  using type = T;
};
template <typename T>
using scalar_t = typename identity<T>::type;

template <typename T>
double as_double(const T& v) {
  return static_cast<double>(static_cast<float>(v));
}
inline double as_double(const double& v) {
  return v;
}
inline double as_double(const int32_t& v) {
  return v;
}
inline double as_double(const uint32_t& v) {
  return v;
}
inline double as_double(const int16_t& v) {
  return v;
}
inline double as_double(const uint16_t& v) {
  return v;
}
inline double as_double(const int8_t& v) {
  return v;
}
inline double as_double(const uint8_t& v) {
  return v;
}
inline double as_double(const int64_t& v) {
  return static_cast<double>(v);
}
inline double as_double(const uint64_t& v) {
  return static_cast<double>(v);
}

inline aopt_sim::rt::vec_shape count_shape(int64_t count) {
  aopt_sim::rt::vec_shape s;
  s.form = aopt_sim::rt::vec_form::count;
  s.count = count < 0 ? 0 : static_cast<uint64_t>(count);
  return s;
}

inline aopt_sim::rt::vec_shape mask_shape(bool set_mask, uint64_t mask, uint32_t repeats) {
  aopt_sim::rt::vec_shape s;
  s.form =
      set_mask ? aopt_sim::rt::vec_form::mask_continuous : aopt_sim::rt::vec_form::mask_register;
  s.count = mask;
  s.repeats = repeats;
  return s;
}

inline aopt_sim::rt::vec_shape mask_shape(bool set_mask, const uint64_t mask[], uint32_t repeats) {
  aopt_sim::rt::vec_shape s;
  const bool bits = set_mask && mask != nullptr;
  s.form = bits ? aopt_sim::rt::vec_form::mask_bits : aopt_sim::rt::vec_form::mask_register;
  if (bits) {
    s.mask_lo = mask[0];
    s.mask_hi = mask[1];
  }
  s.repeats = repeats;
  return s;
}

inline aopt_sim::rt::vec_shape& with(aopt_sim::rt::vec_shape& s, const UnaryRepeatParams& p) {
  s.blk[0] = p.dstBlkStride;
  s.blk[1] = p.srcBlkStride;
  s.rep[0] = p.dstRepStride;
  s.rep[1] = p.srcRepStride;
  return s;
}

inline aopt_sim::rt::vec_shape& with(aopt_sim::rt::vec_shape& s, const BinaryRepeatParams& p) {
  s.blk[0] = p.dstBlkStride;
  s.blk[1] = p.src0BlkStride;
  s.blk[2] = p.src1BlkStride;
  s.rep[0] = p.dstRepStride;
  s.rep[1] = p.src0RepStride;
  s.rep[2] = p.src1RepStride;
  return s;
}

template <typename T>
constexpr aopt_sim::rt::dtype dt() {
  return aopt_sim::rt::dtype_of<T>::value;
}

using site_t = aopt_sim::rt::call_site;

}  // namespace detail

// ---- binary: dst = src0 op src1 --------------------------------------------------------------
#define AOPT_SIM_BINARY(Name, code)                                                             \
  template <typename T>                                                                         \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,  \
            const int32_t& count, detail::site_t site = detail::site_t(__builtin_LINE())) {     \
    aopt_sim::rt::vec_binary(code, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),            \
                             src1.aopt_ref(), detail::count_shape(count), #Name, site);         \
  }                                                                                             \
  template <typename T, bool isSetMask = true>                                                  \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,  \
            uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& params,         \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                           \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);               \
    aopt_sim::rt::vec_binary(code, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),            \
                             src1.aopt_ref(), detail::with(s, params), #Name, site);            \
  }                                                                                             \
  template <typename T, bool isSetMask = true>                                                  \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,  \
            const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& params, \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                           \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);               \
    aopt_sim::rt::vec_binary(code, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),            \
                             src1.aopt_ref(), detail::with(s, params), #Name, site);            \
  }

AOPT_SIM_BINARY(Add, aopt_sim::rt::vop::add)
AOPT_SIM_BINARY(Sub, aopt_sim::rt::vop::sub)
AOPT_SIM_BINARY(Mul, aopt_sim::rt::vop::mul)
AOPT_SIM_BINARY(Div, aopt_sim::rt::vop::div)
AOPT_SIM_BINARY(Max, aopt_sim::rt::vop::max)
AOPT_SIM_BINARY(Min, aopt_sim::rt::vop::min)
AOPT_SIM_BINARY(And, aopt_sim::rt::vop::bit_and)
AOPT_SIM_BINARY(Or, aopt_sim::rt::vop::bit_or)
#undef AOPT_SIM_BINARY

// ---- tensor-scalar: dst = src op scalar ---------------------------------------------------------
#define AOPT_SIM_SCALAR(Name, code)                                                               \
  template <typename T, bool isSetMask = true>                                                    \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
            const detail::scalar_t<T>& scalar, const int32_t& count,                              \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                             \
    aopt_sim::rt::vec_scalar(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),               \
                             detail::as_double(scalar), detail::count_shape(count), #Name, site); \
  }                                                                                               \
  template <typename T, bool isSetMask = true>                                                    \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
            const detail::scalar_t<T>& scalar, uint64_t mask, const uint8_t repeatTimes,          \
            const UnaryRepeatParams& params,                                                      \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                             \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);                 \
    aopt_sim::rt::vec_scalar(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),               \
                             detail::as_double(scalar), detail::with(s, params), #Name, site);    \
  }                                                                                               \
  template <typename T, bool isSetMask = true>                                                    \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
            const detail::scalar_t<T>& scalar, const uint64_t mask[], const uint8_t repeatTimes,  \
            const UnaryRepeatParams& params,                                                      \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                             \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);                 \
    aopt_sim::rt::vec_scalar(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),               \
                             detail::as_double(scalar), detail::with(s, params), #Name, site);    \
  }

AOPT_SIM_SCALAR(Adds, aopt_sim::rt::vop::adds)
AOPT_SIM_SCALAR(Muls, aopt_sim::rt::vop::muls)
AOPT_SIM_SCALAR(Maxs, aopt_sim::rt::vop::maxs)
AOPT_SIM_SCALAR(Mins, aopt_sim::rt::vop::mins)
AOPT_SIM_SCALAR(LeakyRelu, aopt_sim::rt::vop::leaky_relu)
AOPT_SIM_SCALAR(ShiftLeft, aopt_sim::rt::vop::shift_left)
#undef AOPT_SIM_SCALAR

// ShiftRight's mask forms take a trailing roundEn (rounding of the shifted-out bits, not
// simulated: arithmetic shift for signed types, logical for unsigned).
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                const detail::scalar_t<T>& scalar, const int32_t& count,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_scalar(aopt_sim::rt::vop::shift_right, detail::dt<T>(), dst.aopt_ref(),
                           src.aopt_ref(), detail::as_double(scalar), detail::count_shape(count),
                           "ShiftRight", site);
}
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                const detail::scalar_t<T>& scalar, uint64_t mask, const uint8_t repeatTimes,
                const UnaryRepeatParams& params, bool roundEn = false,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(roundEn);
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_scalar(aopt_sim::rt::vop::shift_right, detail::dt<T>(), dst.aopt_ref(),
                           src.aopt_ref(), detail::as_double(scalar), detail::with(s, params),
                           "ShiftRight", site);
}
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                const detail::scalar_t<T>& scalar, const uint64_t mask[], const uint8_t repeatTimes,
                const UnaryRepeatParams& params, bool roundEn = false,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(roundEn);
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_scalar(aopt_sim::rt::vop::shift_right, detail::dt<T>(), dst.aopt_ref(),
                           src.aopt_ref(), detail::as_double(scalar), detail::with(s, params),
                           "ShiftRight", site);
}

// ---- unary: dst = op(src)
// -------------------------------------------------------------------------
#define AOPT_SIM_UNARY(Name, code)                                                       \
  template <typename T, bool isSetMask = true>                                           \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,  \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                    \
    aopt_sim::rt::vec_unary(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),       \
                            detail::count_shape(count), #Name, site);                    \
  }                                                                                      \
  template <typename T, bool isSetMask = true>                                           \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,         \
            const uint8_t repeatTimes, const UnaryRepeatParams& params,                  \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                    \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);        \
    aopt_sim::rt::vec_unary(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),       \
                            detail::with(s, params), #Name, site);                       \
  }                                                                                      \
  template <typename T, bool isSetMask = true>                                           \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], \
            const uint8_t repeatTimes, const UnaryRepeatParams& params,                  \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                    \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);        \
    aopt_sim::rt::vec_unary(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),       \
                            detail::with(s, params), #Name, site);                       \
  }

AOPT_SIM_UNARY(Exp, aopt_sim::rt::vop::exp)
AOPT_SIM_UNARY(Ln, aopt_sim::rt::vop::ln)
AOPT_SIM_UNARY(Abs, aopt_sim::rt::vop::abs)
AOPT_SIM_UNARY(Sqrt, aopt_sim::rt::vop::sqrt)
AOPT_SIM_UNARY(Rsqrt, aopt_sim::rt::vop::rsqrt)
AOPT_SIM_UNARY(Reciprocal, aopt_sim::rt::vop::reciprocal)
AOPT_SIM_UNARY(Relu, aopt_sim::rt::vop::relu)
AOPT_SIM_UNARY(Not, aopt_sim::rt::vop::bit_not)
#undef AOPT_SIM_UNARY

// ---- activations and math of the AscendC high-level API: count form, optionally with a
// shared temporary buffer (unused by the simulator) --------------------------------------------
#define AOPT_SIM_MATH(Name, code)                                                       \
  template <typename T, bool isReuseSource = false>                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                   \
    aopt_sim::rt::vec_unary(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),      \
                            detail::count_shape(count), #Name, site);                   \
  }                                                                                     \
  template <typename T, bool isReuseSource = false>                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t count,          \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                   \
    static_cast<void>(sharedTmpBuffer);                                                 \
    aopt_sim::rt::vec_unary(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),      \
                            detail::count_shape(count), #Name, site);                   \
  }

AOPT_SIM_MATH(Tanh, aopt_sim::rt::vop::tanh)
AOPT_SIM_MATH(Sigmoid, aopt_sim::rt::vop::sigmoid)
AOPT_SIM_MATH(Sin, aopt_sim::rt::vop::sin)
AOPT_SIM_MATH(Cos, aopt_sim::rt::vop::cos)
AOPT_SIM_MATH(Erf, aopt_sim::rt::vop::erf)
AOPT_SIM_MATH(Silu, aopt_sim::rt::vop::silu)
AOPT_SIM_MATH(Gelu, aopt_sim::rt::vop::gelu)
AOPT_SIM_MATH(Floor, aopt_sim::rt::vop::floor)
AOPT_SIM_MATH(Ceil, aopt_sim::rt::vop::ceil)
AOPT_SIM_MATH(Round, aopt_sim::rt::vop::round)
AOPT_SIM_MATH(Trunc, aopt_sim::rt::vop::trunc)
#undef AOPT_SIM_MATH

// ---- Duplicate: dst = scalar
// ------------------------------------------------------------------------
template <typename T>
void Duplicate(const LocalTensor<T>& dst, const detail::scalar_t<T>& scalar, const int32_t& count,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_duplicate(detail::dt<T>(), dst.aopt_ref(), detail::as_double(scalar),
                              detail::count_shape(count), "Duplicate", site);
}
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const detail::scalar_t<T>& scalar, uint64_t mask,
               const uint8_t repeatTimes, const uint16_t dstBlockStride,
               const uint8_t dstRepeatStride,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  s.blk[0] = dstBlockStride;
  s.rep[0] = dstRepeatStride;
  aopt_sim::rt::vec_duplicate(detail::dt<T>(), dst.aopt_ref(), detail::as_double(scalar), s,
                              "Duplicate", site);
}
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const detail::scalar_t<T>& scalar, const uint64_t mask[],
               const uint8_t repeatTimes, const uint16_t dstBlockStride,
               const uint8_t dstRepeatStride,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  s.blk[0] = dstBlockStride;
  s.rep[0] = dstRepeatStride;
  aopt_sim::rt::vec_duplicate(detail::dt<T>(), dst.aopt_ref(), detail::as_double(scalar), s,
                              "Duplicate", site);
}

// ---- Cast: dst = convert(src) with a rounding mode (lanes counted by the wider type)
// ---------------
template <typename T1, typename T2>
void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& round_mode,
          const uint32_t count, detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_cast(detail::dt<T1>(), detail::dt<T2>(), round_mode, dst.aopt_ref(),
                         src.aopt_ref(), detail::count_shape(count), "Cast", site);
}
template <typename T1, typename T2, bool isSetMask = true>
void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& round_mode,
          uint64_t mask, const uint8_t repeatTimes, const UnaryRepeatParams& params,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_cast(detail::dt<T1>(), detail::dt<T2>(), round_mode, dst.aopt_ref(),
                         src.aopt_ref(), detail::with(s, params), "Cast", site);
}
template <typename T1, typename T2, bool isSetMask = true>
void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& round_mode,
          const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& params,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_cast(detail::dt<T1>(), detail::dt<T2>(), round_mode, dst.aopt_ref(),
                         src.aopt_ref(), detail::with(s, params), "Cast", site);
}

// ---- Axpy: dst = dst + src * scalar (dst may be wider: half src into float dst)
// ---------------------
template <typename T, typename U>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const detail::scalar_t<U> scalar,
          const int32_t& count, detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_axpy(detail::dt<T>(), detail::dt<U>(), dst.aopt_ref(), src.aopt_ref(),
                         detail::as_double(scalar), detail::count_shape(count), "Axpy", site);
}
template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const detail::scalar_t<U> scalar,
          uint64_t mask, const uint8_t repeatTimes, const UnaryRepeatParams& params,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_axpy(detail::dt<T>(), detail::dt<U>(), dst.aopt_ref(), src.aopt_ref(),
                         detail::as_double(scalar), detail::with(s, params), "Axpy", site);
}
template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const detail::scalar_t<U> scalar,
          const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& params,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_axpy(detail::dt<T>(), detail::dt<U>(), dst.aopt_ref(), src.aopt_ref(),
                         detail::as_double(scalar), detail::with(s, params), "Axpy", site);
}

// ---- mask registers
// ---------------------------------------------------------------------------------
inline void SetMaskCount() {
  aopt_sim::rt::set_mask_count();
}
inline void SetMaskNorm() {
  aopt_sim::rt::set_mask_norm();
}
inline void ResetMask() {
  aopt_sim::rt::reset_mask();
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  aopt_sim::rt::set_vector_mask(sizeof(T), mode, maskHigh, maskLow);
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(int32_t len) {
  aopt_sim::rt::set_vector_mask_len(sizeof(T), mode, len);
}

}  // namespace AscendC
