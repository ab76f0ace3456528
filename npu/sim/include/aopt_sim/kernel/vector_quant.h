// aopt simulator, kernel side: the dequantisation scale register and the instruction that reads
// it besides Cast int32 -> half (written from the public AscendC documentation):
//   SetDeqScale(half scale)  sets DEQSCALE, the scale of the s322f16 conversions;
//   AddDeqRelu(dst, src0, src1, ...)  half dst = max(deq(int32 src0 + int32 src1), 0), with
//       deq(x) = x * DEQSCALE rounded to half; count and mask/repeat forms as Add.
// The (float scale, offset, signMode) and VdeqInfo forms of SetDeqScale serve CastDeq, which the
// simulator does not provide.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aopt_sim/kernel/vector_ops.h"

namespace AscendC {

// A register write, as SetVectorMask: it takes effect for the vector instructions issued after it.
inline void SetDeqScale(half scale) {
  aopt_sim::rt::set_deq_scale(static_cast<float>(scale));
}

template <typename T, typename U>
void AddDeqRelu(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                const int32_t& count, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, half> && std::is_same_v<U, int32_t>,
                "AddDeqRelu: half dst from int32_t sources");
  aopt_sim::rt::vec_add_deq_relu(dst.aopt_ref(), src0.aopt_ref(), src1.aopt_ref(),
                                 detail::count_shape(count), "AddDeqRelu", site);
}
template <typename T, typename U, bool isSetMask = true>
void AddDeqRelu(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, half> && std::is_same_v<U, int32_t>,
                "AddDeqRelu: half dst from int32_t sources");
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTime);
  aopt_sim::rt::vec_add_deq_relu(dst.aopt_ref(), src0.aopt_ref(), src1.aopt_ref(),
                                 detail::with(s, repeatParams), "AddDeqRelu", site);
}
template <typename T, typename U, bool isSetMask = true>
void AddDeqRelu(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                const uint64_t mask[], const uint8_t repeatTime,
                const BinaryRepeatParams& repeatParams,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, half> && std::is_same_v<U, int32_t>,
                "AddDeqRelu: half dst from int32_t sources");
  aopt_sim::rt::vec_shape s = detail::mask_shape(isSetMask, mask, repeatTime);
  aopt_sim::rt::vec_add_deq_relu(dst.aopt_ref(), src0.aopt_ref(), src1.aopt_ref(),
                                 detail::with(s, repeatParams), "AddDeqRelu", site);
}
// The documented forms with only isSetMask as a template argument (AddDeqRelu<false>(...)).
template <bool isSetMask = true>
void AddDeqRelu(const LocalTensor<half>& dst, const LocalTensor<int32_t>& src0,
                const LocalTensor<int32_t>& src1, uint64_t mask, const uint8_t repeatTime,
                const BinaryRepeatParams& repeatParams,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  AddDeqRelu<half, int32_t, isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams, site);
}
template <bool isSetMask = true>
void AddDeqRelu(const LocalTensor<half>& dst, const LocalTensor<int32_t>& src0,
                const LocalTensor<int32_t>& src1, const uint64_t mask[], const uint8_t repeatTime,
                const BinaryRepeatParams& repeatParams,
                detail::site_t site = detail::site_t(__builtin_LINE())) {
  AddDeqRelu<half, int32_t, isSetMask>(dst, src0, src1, mask, repeatTime, repeatParams, site);
}

}  // namespace AscendC
