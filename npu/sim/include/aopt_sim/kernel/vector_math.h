// aopt simulator, kernel side: the math library (advanced) APIs and basic APIs that real
// operators call beyond vector_arith.h, each one V instruction over contiguous spans (composite
// path: checked against the operands' buffers, traced with its reads and writes, priced by its
// op class and bytes), written from the public AscendC documentation:
//   Atan, Sign, Log2, Log10, Asin, Acos, Tan, Sinh, Cosh, Atanh, Erfc, Frac (element-wise, count
//   form, optionally with a tmp buffer);
//   the whole-tensor forms `Op(dst, src)` / `Op(dst, src, tmp)` of the math library functions
//   (Sin, Cos, Tanh, ..., count = src.GetSize());
//   Fmod (dst = src0 - trunc(src0 / src1) * src1);
//   AddRelu (dst = max(src0 + src1, 0), count and mask/repeat forms, a basic V instruction);
//   Sum (per row of `outter` rows of `inner` elements, the sum of the first n: SumParams),
//   Mean (the same sum divided by n: MeanParams);
//   ReduceSum/ReduceMax/ReduceMin<T, Pattern::Reduce::AR | RA> over a 2-D srcShape;
//   BroadCast<T, dim, axis> (1-D from one element; 2-D along axis 0 or 1 from a size-1 axis);
//   UnPad (drops the rightPad last columns of a [height, width] tensor; the shape comes from
//   the UnPadTiling the host filled), Pad (pads each row to 32 bytes with padValue, from the
//   PadTiling);
//   Extract (splits Sort32/Sort's 8-byte (score, index) pairs into scores and indexes).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aopt_sim/kernel/composite.h"
#include "aopt_sim/kernel/vector_arith.h"
#include "aopt_sim/kernel/vector_ops.h"
#include "aopt_sim/library_tiling.h"

namespace AscendC {

// ---- element-wise math, count form -----------------------------------------------------------
#define AOPT_SIM_MATH_FN(Name, cls, expr)                                                      \
  template <typename T, bool isReuseSource = false>                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,     \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                          \
    detail::map_unary(                                                                         \
        detail::vclass::cls, dst, src, calCount, [](detail::calc_t<T> x) { return (expr); },   \
        #Name, site);                                                                          \
  }                                                                                            \
  template <typename T, bool isReuseSource = false>                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&, \
            const uint32_t calCount, detail::site_t site = detail::site_t(__builtin_LINE())) { \
    Name<T, isReuseSource>(dst, src, calCount, site);                                          \
  }

AOPT_SIM_MATH_FN(Atan, div_transcendental, static_cast<detail::calc_t<T>>(std::atan(x)))
AOPT_SIM_MATH_FN(Sign, simple, static_cast<detail::calc_t<T>>(x > 0 ? 1 : (x < 0 ? -1 : 0)))
AOPT_SIM_MATH_FN(Log2, div_transcendental, static_cast<detail::calc_t<T>>(std::log2(x)))
AOPT_SIM_MATH_FN(Log10, div_transcendental, static_cast<detail::calc_t<T>>(std::log10(x)))
AOPT_SIM_MATH_FN(Asin, div_transcendental, static_cast<detail::calc_t<T>>(std::asin(x)))
AOPT_SIM_MATH_FN(Acos, div_transcendental, static_cast<detail::calc_t<T>>(std::acos(x)))
AOPT_SIM_MATH_FN(Tan, div_transcendental, static_cast<detail::calc_t<T>>(std::tan(x)))
AOPT_SIM_MATH_FN(Sinh, div_transcendental, static_cast<detail::calc_t<T>>(std::sinh(x)))
AOPT_SIM_MATH_FN(Cosh, div_transcendental, static_cast<detail::calc_t<T>>(std::cosh(x)))
AOPT_SIM_MATH_FN(Atanh, div_transcendental, static_cast<detail::calc_t<T>>(std::atanh(x)))
AOPT_SIM_MATH_FN(Erfc, div_transcendental, static_cast<detail::calc_t<T>>(std::erfc(x)))
AOPT_SIM_MATH_FN(Frac, simple, static_cast<detail::calc_t<T>>(x - std::trunc(x)))
#undef AOPT_SIM_MATH_FN

// ---- whole-tensor forms of the math library: Op(dst, src[, tmp]) over src.GetSize() ------------
#define AOPT_SIM_WHOLE_TENSOR(Name)                                         \
  template <typename T, bool isReuseSource = false>                         \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,           \
            detail::site_t site = detail::site_t(__builtin_LINE())) {       \
    Name<T, isReuseSource>(dst, src, src.GetSize(), site);                  \
  }                                                                         \
  template <typename T, bool isReuseSource = false>                         \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,           \
            const LocalTensor<uint8_t>& sharedTmpBuffer,                    \
            detail::site_t site = detail::site_t(__builtin_LINE())) {       \
    Name<T, isReuseSource>(dst, src, sharedTmpBuffer, src.GetSize(), site); \
  }

AOPT_SIM_WHOLE_TENSOR(Sin)
AOPT_SIM_WHOLE_TENSOR(Cos)
AOPT_SIM_WHOLE_TENSOR(Tanh)
AOPT_SIM_WHOLE_TENSOR(Sigmoid)
AOPT_SIM_WHOLE_TENSOR(Erf)
AOPT_SIM_WHOLE_TENSOR(Floor)
AOPT_SIM_WHOLE_TENSOR(Ceil)
AOPT_SIM_WHOLE_TENSOR(Round)
AOPT_SIM_WHOLE_TENSOR(Trunc)
AOPT_SIM_WHOLE_TENSOR(Atan)
AOPT_SIM_WHOLE_TENSOR(Sign)
AOPT_SIM_WHOLE_TENSOR(Log2)
AOPT_SIM_WHOLE_TENSOR(Log10)
AOPT_SIM_WHOLE_TENSOR(Asin)
AOPT_SIM_WHOLE_TENSOR(Acos)
AOPT_SIM_WHOLE_TENSOR(Tan)
AOPT_SIM_WHOLE_TENSOR(Sinh)
AOPT_SIM_WHOLE_TENSOR(Cosh)
AOPT_SIM_WHOLE_TENSOR(Atanh)
AOPT_SIM_WHOLE_TENSOR(Erfc)
AOPT_SIM_WHOLE_TENSOR(Frac)
#undef AOPT_SIM_WHOLE_TENSOR

// ---- Fmod, AddRelu ------------------------------------------------------------------------------
template <typename T, bool isReuseSource = false>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
          const uint32_t calCount, detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::map_binary(
      detail::vclass::div_transcendental, dst, src0, src1, calCount,
      [](detail::calc_t<T> a, detail::calc_t<T> b) {
        return static_cast<detail::calc_t<T>>(
            std::fmod(static_cast<float>(a), static_cast<float>(b)));
      },
      "Fmod", site);
}
template <typename T, bool isReuseSource = false>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
          const LocalTensor<uint8_t>&, const uint32_t calCount,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  Fmod<T, isReuseSource>(dst, src0, src1, calCount, site);
}

// AddRelu is a basic instruction: the count form and the mask/repeat forms (continuous or bit
// mask, BinaryRepeatParams strides) walk their operands as Add does.
template <typename T>
void AddRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             const int32_t& count, detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_binary(aopt_sim::rt::vop::add_relu, detail::dt<T>(), dst.aopt_ref(),
                           src0.aopt_ref(), src1.aopt_ref(), detail::count_shape(count), "AddRelu",
                           site);
}
template <typename T, bool isSetMask = true>
void AddRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTime);
  aopt_sim::rt::vec_binary(aopt_sim::rt::vop::add_relu, detail::dt<T>(), dst.aopt_ref(),
                           src0.aopt_ref(), src1.aopt_ref(), detail::with(s, repeatParams),
                           "AddRelu", site);
}
template <typename T, bool isSetMask = true>
void AddRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             const uint64_t mask[], const uint8_t repeatTime,
             const BinaryRepeatParams& repeatParams,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTime);
  aopt_sim::rt::vec_binary(aopt_sim::rt::vop::add_relu, detail::dt<T>(), dst.aopt_ref(),
                           src0.aopt_ref(), src1.aopt_ref(), detail::with(s, repeatParams),
                           "AddRelu", site);
}

// ---- Sum, Mean
// ------------------------------------------------------------------------------------
struct SumParams {
  uint32_t outter = 1;
  uint32_t inner = 0;  // the row length in elements, 32-byte aligned
  uint32_t n = 0;      // the elements of each row that are summed
};

struct MeanParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};

namespace detail {

// dst[r] = scale * sum(src[r * inner + 0 .. n)) for r < outter; the sum runs in float for the
// 16-bit float types (the library widens them), in order.
template <typename T, typename Acc>
void row_sums(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t outter, uint32_t inner,
              uint32_t n, bool mean, const char* api, site_t site) {
  if (n > inner)
    aopt_sim::rt::kernel_assert_failed("n <= inner (SumParams/MeanParams)", api, site.line);
  const uint64_t src_elems = uint64_t{outter} * inner;
  uint8_t* p[2];
  composite_call(vclass::reduce, {writes(dst, outter), reads(src, src_elems)}, p,
                 src_elems * sizeof(T), api, site);
  for (uint32_t r = 0; r < outter; ++r) {
    Acc acc = 0;
    for (uint32_t i = 0; i < n; ++i)
      acc = static_cast<Acc>(acc + static_cast<Acc>(load<T>(p[1], uint64_t{r} * inner + i)));
    if (mean && n != 0) acc = static_cast<Acc>(acc / static_cast<Acc>(n));
    store<T>(p[0], r, static_cast<calc_t<T>>(acc));
  }
}

}  // namespace detail

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& sumParams,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::row_sums<T, detail::calc_t<T>>(dst, src, sumParams.outter, sumParams.inner, sumParams.n,
                                         false, "Sum", site);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
         const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  Sum<T, reduceDim, isReuseSource, isBasicBlock>(dst, src, sumParams, site);
}

template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const MeanParams& meanParams,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  using acc = std::conditional_t<std::is_same_v<accType, T>, detail::calc_t<T>, accType>;
  detail::row_sums<T, acc>(dst, src, meanParams.outter, meanParams.inner, meanParams.n, true,
                           "Mean", site);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src,
          const LocalTensor<uint8_t>& sharedTmpBuffer, const MeanParams& meanParams,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  Mean<T, accType, isReuseSource, isBasicBlock, reduceDim>(dst, src, meanParams, site);
}

// ---- ReduceSum / ReduceMax / ReduceMin over a 2-D shape, by pattern
// ------------------------------ The library's reduce forms: `Reduce<Op><T, Pattern::Reduce::AR |
// RA, isReuseSource>(dst, src[, tmp], srcShape, srcInnerPad)`. srcShape is {first, last}; AR
// reduces the last axis (dst holds `first` values), RA the first (dst holds `last`). With
// srcInnerPad each row of src is padded to 32 bytes. The documented patterns beyond AR and RA are
// not supported by the library either.
namespace Pattern {
namespace Reduce {
struct AR {};
struct RA {};
}  // namespace Reduce
}  // namespace Pattern

namespace detail {

enum class reduce_op { sum, max, min };

template <typename T, typename P>
void pattern_reduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t shape[],
                    bool inner_pad, reduce_op op, const char* api, site_t site) {
  static_assert(
      std::is_same<P, Pattern::Reduce::AR>::value || std::is_same<P, Pattern::Reduce::RA>::value,
      "the reduce pattern is Pattern::Reduce::AR or Pattern::Reduce::RA");
  constexpr bool reduce_last = std::is_same<P, Pattern::Reduce::AR>::value;
  const uint32_t first = shape[0], last = shape[1];
  constexpr uint32_t per_block = 32 / sizeof(T);
  const uint32_t stride = inner_pad ? (last + per_block - 1) / per_block * per_block : last;
  const uint64_t src_elems = first == 0 ? 0 : uint64_t{first - 1} * stride + last;
  const uint32_t outputs = reduce_last ? first : last;
  const uint32_t count = reduce_last ? last : first;
  uint8_t* p[2];
  composite_call(vclass::reduce, {writes(dst, outputs), reads(src, src_elems)}, p,
                 src_elems * sizeof(T), api, site);
  for (uint32_t o = 0; o < outputs; ++o) {
    calc_t<T> acc = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t at = reduce_last ? uint64_t{o} * stride + i : uint64_t{i} * stride + o;
      const calc_t<T> v = static_cast<calc_t<T>>(load<T>(p[1], at));
      if (i == 0 && op != reduce_op::sum)
        acc = v;
      else if (op == reduce_op::sum)
        acc = static_cast<calc_t<T>>(acc + v);
      else if (op == reduce_op::max)
        acc = v > acc ? v : acc;
      else
        acc = v < acc ? v : acc;
    }
    store<T>(p[0], o, acc);
  }
}

}  // namespace detail

template <class T, class pattern, bool isReuseSource = false>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t srcShape[],
               bool srcInnerPad, detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::pattern_reduce<T, pattern>(dst, src, srcShape, srcInnerPad, detail::reduce_op::sum,
                                     "ReduceSum", site);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[],
               bool srcInnerPad, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  ReduceSum<T, pattern, isReuseSource>(dst, src, srcShape, srcInnerPad, site);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t srcShape[],
               bool srcInnerPad, detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::pattern_reduce<T, pattern>(dst, src, srcShape, srcInnerPad, detail::reduce_op::max,
                                     "ReduceMax", site);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[],
               bool srcInnerPad, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  ReduceMax<T, pattern, isReuseSource>(dst, src, srcShape, srcInnerPad, site);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t srcShape[],
               bool srcInnerPad, detail::site_t site = detail::site_t(__builtin_LINE())) {
  detail::pattern_reduce<T, pattern>(dst, src, srcShape, srcInnerPad, detail::reduce_op::min,
                                     "ReduceMin", site);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[],
               bool srcInnerPad, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  ReduceMin<T, pattern, isReuseSource>(dst, src, srcShape, srcInnerPad, site);
}

// ---- BroadCast
// ------------------------------------------------------------------------------------
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim],
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(dim == 1 || dim == 2, "BroadCast: dim is 1 or 2");
  static_assert(axis >= 0 && axis < dim, "BroadCast: axis < dim");
  const uint64_t rows = dim == 2 ? dstShape[0] : 1;
  const uint64_t cols = dim == 2 ? dstShape[1] : dstShape[0];
  const uint64_t src_elems = dim == 2 ? uint64_t{srcShape[0]} * srcShape[1] : srcShape[0];
  if (srcShape[axis] != 1) {
    aopt_sim::rt::kernel_assert_failed("srcShape[axis] == 1 (BroadCast)", "BroadCast", site.line);
  }
  const uint64_t dst_elems = rows * cols;
  uint8_t* p[2];
  detail::composite_call(detail::vclass::simple,
                         {detail::writes(dst, dst_elems), detail::reads(src, src_elems)}, p,
                         dst_elems * sizeof(T), "BroadCast", site);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < cols; ++c) {
      // dim 1: every element from src[0]; axis 0: row r from the one source row; axis 1:
      // column c from the source's one column.
      const uint64_t from = dim == 1 ? 0 : (axis == 0 ? c : r);
      T v;
      std::memcpy(&v, p[1] + from * sizeof(T), sizeof(T));
      std::memcpy(p[0] + (r * cols + c) * sizeof(T), &v, sizeof(T));
    }
  }
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, site);
}

// ---- Broadcast: the name later CANN releases give BroadCast (same signatures, same results).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim],
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, site);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer,
               detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, site);
}

// ---- ArithProgression: dst[i] = firstValue + i * diffValue for i < count (half, float,
// int16_t, int32_t). The documentation builds it on the vector unit (SetValue of the first
// eight, then Adds doubling the run): one simple V instruction over the count elements here.
template <typename T>
void ArithProgression(const LocalTensor<T>& dst, const T firstValue, const T diffValue,
                      const int32_t count, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>,
                "ArithProgression: half, float, int16_t or int32_t");
  if (count <= 0) {
    aopt_sim::rt::kernel_assert_failed("count > 0 (ArithProgression)", "ArithProgression",
                                       site.line);
  }
  const uint64_t n = static_cast<uint64_t>(count);
  uint8_t* p[1];
  detail::composite_call(detail::vclass::simple, {detail::writes(dst, n)}, p, n * sizeof(T),
                         "ArithProgression", site);
  // Computed in the type's arithmetic (float for half), as each Adds step of the library is.
  using calc = std::conditional_t<std::is_same_v<T, half>, float, T>;
  for (uint64_t i = 0; i < n; ++i) {
    const T v =
        static_cast<T>(static_cast<calc>(firstValue) +
                       static_cast<calc>(static_cast<calc>(i) * static_cast<calc>(diffValue)));
    std::memcpy(p[0] + i * sizeof(T), &v, sizeof(T));
  }
}

// ---- UnPad
// ------------------------------------------------------------------------------------------
struct UnPadParams {
  uint16_t leftPad = 0;
  uint16_t rightPad = 0;
};

template <typename T>
void UnPad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const UnPadParams& unPadParams,
           const UnPadTiling& tiling, detail::site_t site = detail::site_t(__builtin_LINE())) {
  const uint64_t height = tiling.srcHeight;
  const uint64_t width = tiling.srcWidth;
  const uint64_t pad = uint64_t{unPadParams.leftPad} + unPadParams.rightPad;
  if (unPadParams.leftPad != 0) {
    aopt_sim::rt::kernel_assert_failed("unPadParams.leftPad == 0 (UnPad removes right padding)",
                                       "UnPad", site.line);
  }
  if (pad > width)
    aopt_sim::rt::kernel_assert_failed("rightPad <= width (UnPad)", "UnPad", site.line);
  const uint64_t out_cols = width - pad;
  uint8_t* p[2];
  detail::composite_call(
      detail::vclass::simple,
      {detail::writes(dst, height * out_cols), detail::reads(src, height * width)}, p,
      height * width * sizeof(T), "UnPad", site);
  for (uint64_t r = 0; r < height; ++r)
    std::memmove(p[0] + r * out_cols * sizeof(T), p[1] + r * width * sizeof(T),
                 out_cols * sizeof(T));
}
template <typename T>
void UnPad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const UnPadParams& unPadParams,
           const LocalTensor<uint8_t>& sharedTmpBuffer, const UnPadTiling& tiling,
           detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  UnPad(dst, src, unPadParams, tiling, site);
}

// ---- Pad
// ------------------------------------------------------------------------------------------
// Pads the rows of a [height, srcWidth] tensor to 32 bytes: the first srcOriWidth elements of
// each row are copied and the rest of the padded row (rightPad elements: srcOriWidth + rightPad
// is the padded width) is set to padValue. A width that is not 32-byte aligned grows (16 x 15
// half -> 16 x 16); an aligned one with redundant last columns keeps its width and has them
// filled. The shape comes from the PadTiling PadTilingFunc filled; leftPad is 0 (right padding
// only, as UnPad).
struct PadParams {
  uint16_t leftPad = 0;
  uint16_t rightPad = 0;
  int32_t padValue = 0;
};

template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         PadTiling& tiling, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Pad: 16- or 32-bit elements");
  const uint64_t height = tiling.srcHeight;
  const uint64_t width = tiling.srcWidth;
  const uint64_t valid = tiling.srcOriWidth;
  constexpr uint64_t block = 32 / sizeof(T);
  const uint64_t padded = (width + block - 1) / block * block;
  if (padParams.leftPad != 0)
    aopt_sim::rt::kernel_assert_failed("padParams.leftPad == 0 (Pad pads on the right)", "Pad",
                                       site.line);
  if (valid > width || valid + padParams.rightPad != padded)
    aopt_sim::rt::kernel_assert_failed(
        "srcOriWidth <= srcWidth and srcOriWidth + rightPad is the 32-byte aligned width (Pad)",
        "Pad", site.line);
  if (height == 0 || padded == 0) return;
  uint8_t* p[2];
  detail::composite_call(
      detail::vclass::simple,
      {detail::writes(dstTensor, height * padded), detail::reads(srcTensor, height * width)}, p,
      height * padded * sizeof(T), "Pad", site);
  // Row by row from the last: dst may be the source, and its rows only grow.
  const T fill = static_cast<T>(padParams.padValue);
  for (uint64_t r = height; r-- > 0;) {
    std::memmove(p[0] + r * padded * sizeof(T), p[1] + r * width * sizeof(T), valid * sizeof(T));
    for (uint64_t c = valid; c < padded; ++c)
      std::memcpy(p[0] + (r * padded + c) * sizeof(T), &fill, sizeof(T));
  }
}
template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         const LocalTensor<uint8_t>& sharedTmpBuffer, PadTiling& tiling,
         detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(sharedTmpBuffer);
  Pad(dstTensor, srcTensor, padParams, tiling, site);
}

// ---- Extract
// ----------------------------------------------------------------------------------------
// repeatTimes repeats of 32 (score, index) pairs (8 bytes each: the score in the low bytes, the
// uint32 index in the high 4) into 32 scores and 32 indexes per repeat.
template <typename T>
void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex,
             const LocalTensor<T>& sorted, const int32_t repeatTimes,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Extract: half or float scores");
  const uint64_t n = repeatTimes < 0 ? 0 : uint64_t{32} * static_cast<uint64_t>(repeatTimes);
  constexpr uint64_t per_pair = 8 / sizeof(T);
  uint8_t* p[3];
  detail::composite_call(
      detail::vclass::simple,
      {detail::writes(dstValue, n, "dstValue"), detail::writes(dstIndex, n, "dstIndex"),
       detail::reads(sorted, n * per_pair, "sorted")},
      p, n * 8, "Extract", site);
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(p[0] + i * sizeof(T), p[2] + i * 8, sizeof(T));
    std::memcpy(p[1] + i * 4, p[2] + i * 8 + 4, 4);
  }
}

}  // namespace AscendC
