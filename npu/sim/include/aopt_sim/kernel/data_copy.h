// aopt simulator, kernel side: DataCopy and DataCopyPad between GM and UB (and UB -> UB), plus
// SetPadValue and the atomic accumulation modes of UB -> GM copies.
//
// DataCopy moves whole 32-byte blocks: a count whose byte size is not a multiple of 32, or a UB
// address that is not 32-byte aligned, is reported (hardware would silently round down).
// DataCopyPad moves any number of bytes per burst and pads each burst to 32 bytes in UB.
#pragma once

#include <cstdint>
#include <cstring>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {

namespace detail {

constexpr uint32_t block_bytes = 32;

inline uint32_t align_block(uint32_t bytes) {
  return (bytes + block_bytes - 1) / block_bytes * block_bytes;
}

template <typename T>
uint8_t* gm_bytes(const GlobalTensor<T>& t) {
  return reinterpret_cast<uint8_t*>(t.GetPhyAddr());
}

template <typename T>
aopt_sim::rt::copy_geometry count_geometry(uint32_t count) {
  aopt_sim::rt::copy_geometry g;
  g.bursts = 1;
  g.burst_bytes = count * static_cast<uint32_t>(sizeof(T));
  return g;
}

// DataCopyParams: lengths and gaps in 32-byte blocks.
inline aopt_sim::rt::copy_geometry block_geometry(const DataCopyParams& p, bool gm_is_src) {
  aopt_sim::rt::copy_geometry g;
  g.bursts = p.blockCount;
  g.burst_bytes = uint32_t{p.blockLen} * block_bytes;
  const uint64_t gm_gap = uint64_t{gm_is_src ? p.srcStride : p.dstStride} * block_bytes;
  const uint32_t ub_gap = uint32_t{gm_is_src ? p.dstStride : p.srcStride} * block_bytes;
  g.gm_stride = g.burst_bytes + gm_gap;
  g.ub_stride = g.burst_bytes + ub_gap;
  return g;
}

template <typename T>
aopt_sim::rt::pad_spec pad_of(bool is_pad, uint8_t left, uint8_t right, uint64_t value_bits) {
  aopt_sim::rt::pad_spec p;
  p.source = is_pad ? aopt_sim::rt::pad_source::value : aopt_sim::rt::pad_source::pad_register;
  p.left_elems = left;
  p.right_elems = right;
  p.value_bits = value_bits;
  return p;
}

// DataCopyPad GM -> UB: blockLen and the GM gap in bytes, the UB gap in 32-byte blocks; each UB
// row holds the left pad, the payload and the right pad, rounded up to 32 bytes.
template <typename T>
aopt_sim::rt::copy_geometry pad_in_geometry(uint32_t count, uint32_t len, uint64_t gm_gap,
                                            uint32_t ub_gap_blocks, uint32_t left, uint32_t right) {
  aopt_sim::rt::copy_geometry g;
  g.bursts = count;
  g.burst_bytes = len;
  g.gm_stride = len + gm_gap;
  g.ub_lead = left * static_cast<uint32_t>(sizeof(T));
  g.ub_row = align_block(g.ub_lead + len + right * static_cast<uint32_t>(sizeof(T)));
  g.ub_stride = g.ub_row + ub_gap_blocks * block_bytes;
  g.whole_blocks = false;
  return g;
}

// DataCopyPad UB -> GM: the UB gap in 32-byte blocks, the GM gap in bytes.
inline aopt_sim::rt::copy_geometry pad_out_geometry(uint32_t count, uint32_t len,
                                                    uint32_t ub_gap_blocks, uint64_t gm_gap) {
  aopt_sim::rt::copy_geometry g;
  g.bursts = count;
  g.burst_bytes = len;
  g.gm_stride = len + gm_gap;
  g.ub_stride = align_block(len) + ub_gap_blocks * block_bytes;
  g.whole_blocks = false;
  return g;
}

template <typename T>
uint64_t value_bits(const T& v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T) < sizeof(bits) ? sizeof(T) : sizeof(bits));
  return bits;
}

}  // namespace detail

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_gm_to_ub(
      dst.aopt_ref(), detail::gm_bytes(src), aopt_sim::rt::dtype_of<T>::value, sizeof(T),
      detail::count_geometry<T>(count), aopt_sim::rt::pad_spec(), "DataCopy", site);
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_ub_to_gm(detail::gm_bytes(dst), src.aopt_ref(),
                              aopt_sim::rt::dtype_of<T>::value, sizeof(T),
                              detail::count_geometry<T>(count), "DataCopy", site);
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_geometry g = detail::count_geometry<T>(count);
  aopt_sim::rt::copy_ub_to_ub(dst.aopt_ref(), src.aopt_ref(), sizeof(T), g, "DataCopy", site);
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_gm_to_ub(
      dst.aopt_ref(), detail::gm_bytes(src), aopt_sim::rt::dtype_of<T>::value, sizeof(T),
      detail::block_geometry(params, true), aopt_sim::rt::pad_spec(), "DataCopy", site);
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_ub_to_gm(detail::gm_bytes(dst), src.aopt_ref(),
                              aopt_sim::rt::dtype_of<T>::value, sizeof(T),
                              detail::block_geometry(params, false), "DataCopy", site);
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_geometry g;
  g.bursts = params.blockCount;
  g.burst_bytes = uint32_t{params.blockLen} * detail::block_bytes;
  g.ub_src_stride = g.burst_bytes + uint32_t{params.srcStride} * detail::block_bytes;
  g.ub_stride = g.burst_bytes + uint32_t{params.dstStride} * detail::block_bytes;
  aopt_sim::rt::copy_ub_to_ub(dst.aopt_ref(), src.aopt_ref(), sizeof(T), g, "DataCopy", site);
}

// The enhanced forms: their DataCopyEnhancedParams take effect only on the CO1 -> CO2 path of
// another chip family; on these paths they are documented to copy as the plain form does.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
              const DataCopyEnhancedParams&,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  DataCopy(dst, src, params, site);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              const DataCopyEnhancedParams&,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  DataCopy(dst, src, params, site);
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              const DataCopyEnhancedParams&,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  DataCopy(dst, src, params, site);
}

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                 const DataCopyExtParams& params, const DataCopyPadExtParams<T>& pad,
                 aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_gm_to_ub(
      dst.aopt_ref(), detail::gm_bytes(src), aopt_sim::rt::dtype_of<T>::value, sizeof(T),
      detail::pad_in_geometry<T>(params.blockCount, params.blockLen, params.srcStride,
                                 params.dstStride, pad.leftPadding, pad.rightPadding),
      detail::pad_of<T>(pad.isPad, pad.leftPadding, pad.rightPadding,
                        detail::value_bits(pad.paddingValue)),
      "DataCopyPad", site);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                 const DataCopyExtParams& params,
                 aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_ub_to_gm(detail::gm_bytes(dst), src.aopt_ref(),
                              aopt_sim::rt::dtype_of<T>::value, sizeof(T),
                              detail::pad_out_geometry(params.blockCount, params.blockLen,
                                                       params.srcStride, params.dstStride),
                              "DataCopyPad", site);
}

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                 const DataCopyParams& params, const DataCopyPadParams& pad,
                 aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_gm_to_ub(
      dst.aopt_ref(), detail::gm_bytes(src), aopt_sim::rt::dtype_of<T>::value, sizeof(T),
      detail::pad_in_geometry<T>(params.blockCount, params.blockLen, params.srcStride,
                                 params.dstStride, pad.leftPadding, pad.rightPadding),
      detail::pad_of<T>(pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue),
      "DataCopyPad", site);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                 const DataCopyParams& params,
                 aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::copy_ub_to_gm(detail::gm_bytes(dst), src.aopt_ref(),
                              aopt_sim::rt::dtype_of<T>::value, sizeof(T),
                              detail::pad_out_geometry(params.blockCount, params.blockLen,
                                                       params.srcStride, params.dstStride),
                              "DataCopyPad", site);
}

template <typename T, TPosition pos = TPosition::MAX>
void SetPadValue(T paddingValue) {
  aopt_sim::rt::set_pad_value(detail::value_bits(paddingValue));
}

template <typename T>
void SetAtomicAdd() {
  aopt_sim::rt::set_atomic(aopt_sim::rt::atomic_op::add, aopt_sim::rt::dtype_of<T>::value);
}
template <typename T>
void SetAtomicMax() {
  aopt_sim::rt::set_atomic(aopt_sim::rt::atomic_op::max, aopt_sim::rt::dtype_of<T>::value);
}
template <typename T>
void SetAtomicMin() {
  aopt_sim::rt::set_atomic(aopt_sim::rt::atomic_op::min, aopt_sim::rt::dtype_of<T>::value);
}
inline void SetAtomicNone() {
  aopt_sim::rt::set_atomic(aopt_sim::rt::atomic_op::none, aopt_sim::rt::dtype::other);
}

}  // namespace AscendC
