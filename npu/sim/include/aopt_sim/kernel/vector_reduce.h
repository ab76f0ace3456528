// aopt simulator, kernel side: comparison into bit masks, Select by bit mask, and reductions
// (ReduceSum/Max/Min over a whole tensor, WholeReduce* per repeat, BlockReduce* per 32-byte
// block).
//
// Bit masks are packed LSB first: bit i of byte i/8 belongs to element i. Compare in count form
// needs count * sizeof(T) to be a multiple of 256 bytes.
#pragma once

#include <cstdint>
#include <utility>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/vector_ops.h"

namespace AscendC {

// ---- Compare / CompareScalar (alias Compares)
// -------------------------------------------------------
template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, uint32_t count,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src1.aopt_ref(), false, 0, detail::count_shape(count), "Compare", site);
}
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& params,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src1.aopt_ref(), false, 0, detail::with(s, params), "Compare", site);
}
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, const uint64_t mask[], uint8_t repeatTimes,
             const BinaryRepeatParams& params,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src1.aopt_ref(), false, 0, detail::with(s, params), "Compare", site);
}
// One repeat into the CMPMASK register (read by Select in VSEL_CMPMASK_SPR mode, GetCmpMask).
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, uint64_t mask,
             const BinaryRepeatParams& params,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, 1);
  aopt_sim::rt::vec_compare_to_register(cmpMode, detail::dt<T>(), src0.aopt_ref(), src1.aopt_ref(),
                                        detail::with(s, params), "Compare", site);
}
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask[], const BinaryRepeatParams& params,
             detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, 1);
  aopt_sim::rt::vec_compare_to_register(cmpMode, detail::dt<T>(), src0.aopt_ref(), src1.aopt_ref(),
                                        detail::with(s, params), "Compare", site);
}

template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                   const detail::scalar_t<T> src1Scalar, CMPMODE cmpMode, uint32_t count,
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src0.aopt_ref(), true, detail::as_double(src1Scalar),
                            detail::count_shape(count), "CompareScalar", site);
}
template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                   const detail::scalar_t<T> src1Scalar, CMPMODE cmpMode, uint64_t mask,
                   uint8_t repeatTimes, const UnaryRepeatParams& params,
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src0.aopt_ref(), true, detail::as_double(src1Scalar),
                            detail::with(s, params), "CompareScalar", site);
}
template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                   const detail::scalar_t<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                   uint8_t repeatTimes, const UnaryRepeatParams& params,
                   detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src0.aopt_ref(), true, detail::as_double(src1Scalar),
                            detail::with(s, params), "CompareScalar", site);
}

template <typename T, typename U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
              const detail::scalar_t<T> src1Scalar, CMPMODE cmpMode, uint32_t count,
              detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src0.aopt_ref(), true, detail::as_double(src1Scalar),
                            detail::count_shape(count), "Compares", site);
}
template <typename T, typename U, bool isSetMask = true>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
              const detail::scalar_t<T> src1Scalar, CMPMODE cmpMode, uint64_t mask,
              uint8_t repeatTimes, const UnaryRepeatParams& params,
              detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_compare(cmpMode, detail::dt<T>(), dst.aopt_ref(), src0.aopt_ref(),
                            src0.aopt_ref(), true, detail::as_double(src1Scalar),
                            detail::with(s, params), "Compares", site);
}

template <typename T>
void SetCmpMask(const LocalTensor<T>& src, detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::set_cmp_mask(src.aopt_ref(), site);
}
template <typename T>
void GetCmpMask(const LocalTensor<T>& dst, detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::get_cmp_mask(dst.aopt_ref(), site);
}

// ---- Select: dst = mask bit ? src0 : src1
// -----------------------------------------------------------
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), &selMask.aopt_ref(),
                           src0.aopt_ref(), src1.aopt_ref(), false, 0, detail::count_shape(count),
                           "Select", site);
}
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const detail::scalar_t<T> src1, SELMODE selMode, uint32_t count,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), &selMask.aopt_ref(),
                           src0.aopt_ref(), src0.aopt_ref(), true, detail::as_double(src1),
                           detail::count_shape(count), "Select", site);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, uint8_t repeatTimes,
            const BinaryRepeatParams& params,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), &selMask.aopt_ref(),
                           src0.aopt_ref(), src1.aopt_ref(), false, 0, detail::with(s, params),
                           "Select", site);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[], uint8_t repeatTimes,
            const BinaryRepeatParams& params,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), &selMask.aopt_ref(),
                           src0.aopt_ref(), src1.aopt_ref(), false, 0, detail::with(s, params),
                           "Select", site);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const detail::scalar_t<T> src1, SELMODE selMode, uint64_t mask, uint8_t repeatTimes,
            const BinaryRepeatParams& params,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), &selMask.aopt_ref(),
                           src0.aopt_ref(), src0.aopt_ref(), true, detail::as_double(src1),
                           detail::with(s, params), "Select", site);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const detail::scalar_t<T> src1, SELMODE selMode, const uint64_t mask[],
            uint8_t repeatTimes, const BinaryRepeatParams& params,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTimes);
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), &selMask.aopt_ref(),
                           src0.aopt_ref(), src0.aopt_ref(), true, detail::as_double(src1),
                           detail::with(s, params), "Select", site);
}
// The CMPMASK register form (SetCmpMask or a register Compare first); the vector mask comes from
// SetVectorMask.
template <typename T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            uint8_t repeatTimes, const BinaryRepeatParams& params,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_shape s = detail::mask_shape(false, uint64_t{0}, repeatTimes);
  aopt_sim::rt::vec_select(selMode, detail::dt<T>(), dst.aopt_ref(), nullptr, src0.aopt_ref(),
                           src1.aopt_ref(), false, 0, detail::with(s, params), "Select", site);
}

// ---- ReduceSum / ReduceMax / ReduceMin over a whole tensor
// --------------------------------------------
#define AOPT_SIM_REDUCE(Name, code)                                                               \
  template <typename T>                                                                           \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
            const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = false,    \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                             \
    aopt_sim::rt::vec_reduce(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),               \
                             sharedTmpBuffer.aopt_ref(), calIndex, detail::count_shape(count),    \
                             #Name, site);                                                        \
  }                                                                                               \
  template <typename T, bool isSetMask = true>                                                    \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
            const LocalTensor<T>& sharedTmpBuffer, const int32_t mask, const int32_t repeatTimes, \
            const int32_t srcRepStride, bool calIndex = false,                                    \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                             \
    aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, static_cast<uint64_t>(mask),        \
                                                   static_cast<uint32_t>(repeatTimes));           \
    s.rep[1] = static_cast<uint16_t>(srcRepStride);                                               \
    aopt_sim::rt::vec_reduce(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),               \
                             sharedTmpBuffer.aopt_ref(), calIndex, s, #Name, site);               \
  }                                                                                               \
  template <typename T, bool isSetMask = true>                                                    \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                 \
            const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[],                         \
            const int32_t repeatTimes, const int32_t srcRepStride, bool calIndex = false,         \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                             \
    aopt_sim::rt::vec_shape s =                                                                   \
        detail::mask_shape(isSetMask, mask, static_cast<uint32_t>(repeatTimes));                  \
    s.rep[1] = static_cast<uint16_t>(srcRepStride);                                               \
    aopt_sim::rt::vec_reduce(code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),               \
                             sharedTmpBuffer.aopt_ref(), calIndex, s, #Name, site);               \
  }

AOPT_SIM_REDUCE(ReduceSum, aopt_sim::rt::vop::sum)
AOPT_SIM_REDUCE(ReduceMax, aopt_sim::rt::vop::max)
AOPT_SIM_REDUCE(ReduceMin, aopt_sim::rt::vop::min)
#undef AOPT_SIM_REDUCE

// ---- WholeReduce*: one result per repeat
// ----------------------------------------------------------
namespace detail {

inline aopt_sim::rt::vec_shape repeat_shape(aopt_sim::rt::vec_shape s, int32_t srcBlkStride,
                                            int32_t srcRepStride) {
  s.blk[1] = static_cast<uint16_t>(srcBlkStride);
  s.rep[1] = static_cast<uint16_t>(srcRepStride);
  return s;
}

}  // namespace detail

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                    const int32_t repeatTimes, const int32_t dstRepStride,
                    const int32_t srcBlkStride, const int32_t srcRepStride,
                    detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_whole_reduce(
      aopt_sim::rt::vop::sum, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),
      ReduceOrder::ORDER_ONLY_VALUE, static_cast<uint32_t>(dstRepStride),
      detail::repeat_shape(detail::mask_shape(isSetMask, static_cast<uint64_t>(mask),
                                              static_cast<uint32_t>(repeatTimes)),
                           srcBlkStride, srcRepStride),
      "WholeReduceSum", site);
}
template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                    const int32_t repeatTimes, const int32_t dstRepStride,
                    const int32_t srcBlkStride, const int32_t srcRepStride,
                    detail::site_t site = detail::site_t(__builtin_LINE())) {
  aopt_sim::rt::vec_whole_reduce(
      aopt_sim::rt::vop::sum, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),
      ReduceOrder::ORDER_ONLY_VALUE, static_cast<uint32_t>(dstRepStride),
      detail::repeat_shape(detail::mask_shape(isSetMask, mask, static_cast<uint32_t>(repeatTimes)),
                           srcBlkStride, srcRepStride),
      "WholeReduceSum", site);
}

template <typename T, bool isSetMask = true>
void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const int32_t repeatTimes, const int32_t mask, const int32_t dstBlkStride,
                     const int32_t srcBlkStride, const int32_t dstRepStride,
                     const int32_t srcRepStride,
                     detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_cast<void>(dstBlkStride);
  aopt_sim::rt::vec_whole_reduce(
      aopt_sim::rt::vop::sum, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),
      ReduceOrder::ORDER_ONLY_VALUE, static_cast<uint32_t>(dstRepStride),
      detail::repeat_shape(detail::mask_shape(isSetMask, static_cast<uint64_t>(mask),
                                              static_cast<uint32_t>(repeatTimes)),
                           srcBlkStride, srcRepStride),
      "RepeatReduceSum", site);
}

#define AOPT_SIM_WHOLE_REDUCE(Name, code)                                                          \
  template <typename T, bool isSetMask = true>                                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,              \
            const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,     \
            const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,        \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                              \
    aopt_sim::rt::vec_whole_reduce(                                                                \
        code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(), order,                              \
        static_cast<uint32_t>(dstRepStride),                                                       \
        detail::repeat_shape(detail::mask_shape(isSetMask, static_cast<uint64_t>(mask),            \
                                                static_cast<uint32_t>(repeatTimes)),               \
                             srcBlkStride, srcRepStride),                                          \
        #Name, site);                                                                              \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],           \
            const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,     \
            const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,        \
            detail::site_t site = detail::site_t(__builtin_LINE())) {                              \
    aopt_sim::rt::vec_whole_reduce(                                                                \
        code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(), order,                              \
        static_cast<uint32_t>(dstRepStride),                                                       \
        detail::repeat_shape(                                                                      \
            detail::mask_shape(isSetMask, mask, static_cast<uint32_t>(repeatTimes)), srcBlkStride, \
            srcRepStride),                                                                         \
        #Name, site);                                                                              \
  }

AOPT_SIM_WHOLE_REDUCE(WholeReduceMax, aopt_sim::rt::vop::max)
AOPT_SIM_WHOLE_REDUCE(WholeReduceMin, aopt_sim::rt::vop::min)
#undef AOPT_SIM_WHOLE_REDUCE

// ---- BlockReduce*: one result per 32-byte block
// ----------------------------------------------------
#define AOPT_SIM_BLOCK_REDUCE(Name, code)                                                          \
  template <typename T, bool isSetMask = true>                                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,       \
            const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,            \
            const int32_t srcRepStride, detail::site_t site = detail::site_t(__builtin_LINE())) {  \
    aopt_sim::rt::vec_block_reduce(                                                                \
        code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),                                     \
        static_cast<uint32_t>(dstRepStride),                                                       \
        detail::repeat_shape(detail::mask_shape(isSetMask, static_cast<uint64_t>(mask),            \
                                                static_cast<uint32_t>(repeatTimes)),               \
                             srcBlkStride, srcRepStride),                                          \
        #Name, site);                                                                              \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,       \
            const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,         \
            const int32_t srcRepStride, detail::site_t site = detail::site_t(__builtin_LINE())) {  \
    aopt_sim::rt::vec_block_reduce(                                                                \
        code, detail::dt<T>(), dst.aopt_ref(), src.aopt_ref(),                                     \
        static_cast<uint32_t>(dstRepStride),                                                       \
        detail::repeat_shape(                                                                      \
            detail::mask_shape(isSetMask, mask, static_cast<uint32_t>(repeatTimes)), srcBlkStride, \
            srcRepStride),                                                                         \
        #Name, site);                                                                              \
  }

AOPT_SIM_BLOCK_REDUCE(BlockReduceSum, aopt_sim::rt::vop::sum)
AOPT_SIM_BLOCK_REDUCE(BlockReduceMax, aopt_sim::rt::vop::max)
AOPT_SIM_BLOCK_REDUCE(BlockReduceMin, aopt_sim::rt::vop::min)
#undef AOPT_SIM_BLOCK_REDUCE

// Newer CANN releases name the per-repeat and per-block reductions ReduceRepeat* and
// ReduceDataBlock*, with the arguments of WholeReduce* and BlockReduce*.
#define AOPT_SIM_REDUCE_ALIAS(Name, Target)                                         \
  template <typename T, bool isSetMask = true, typename... Args>                    \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, Args&&... args) { \
    Target<T, isSetMask>(dst, src, std::forward<Args>(args)...);                    \
  }

AOPT_SIM_REDUCE_ALIAS(ReduceRepeatSum, WholeReduceSum)
AOPT_SIM_REDUCE_ALIAS(ReduceRepeatMax, WholeReduceMax)
AOPT_SIM_REDUCE_ALIAS(ReduceRepeatMin, WholeReduceMin)
AOPT_SIM_REDUCE_ALIAS(ReduceDataBlockSum, BlockReduceSum)
AOPT_SIM_REDUCE_ALIAS(ReduceDataBlockMax, BlockReduceMax)
AOPT_SIM_REDUCE_ALIAS(ReduceDataBlockMin, BlockReduceMin)
#undef AOPT_SIM_REDUCE_ALIAS

}  // namespace AscendC
