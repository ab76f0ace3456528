// aopt simulator, kernel side: GlobalTensor (a typed view of GM) and LocalTensor (a typed view of
// a Unified Buffer allocation).
//
// A LocalTensor carries its UB address and the bounds of the TPipe buffer it came from; every
// access through it is checked against those bounds. Scalar GetValue/SetValue run on the scalar
// pipe and are traced (consecutive accesses coalesce into one trace instruction).
#pragma once

#include <cstdint>
#include <cstring>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/dtypes.h"
#include "aopt_sim/kernel/runtime_api.h"

namespace AscendC {

template <typename T>
class GlobalTensor;

namespace detail {

// `gm(i)` in AscendC yields a reference to a GM element; the proxy traces the read or write.
template <typename T>
class global_element {
 public:
  global_element(const GlobalTensor<T>& t, uint64_t index, aopt_sim::rt::call_site site)
      : tensor_(t), index_(index), site_(site) {}
  operator T() const { return tensor_.GetValue(index_, site_); }  // NOLINT
  global_element& operator=(const T& v) {
    tensor_.SetValue(index_, v, site_);
    return *this;
  }
  global_element& operator=(const global_element& other) { return *this = static_cast<T>(other); }
  global_element& operator+=(const T& v) {
    return *this = static_cast<T>(static_cast<T>(*this) + v);
  }
  global_element& operator-=(const T& v) {
    return *this = static_cast<T>(static_cast<T>(*this) - v);
  }

 private:
  GlobalTensor<T> tensor_;  // a copy (a pointer and a size): the proxy may outlive a temporary
  uint64_t index_;
  aopt_sim::rt::call_site site_;
};

}  // namespace detail

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;

  GlobalTensor() = default;

  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    address_ = buffer;
    bufferSize_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T* buffer) { SetGlobalBuffer(buffer, 0); }

  GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor sub = *this;
    sub.address_ = address_ + offset;
    sub.bufferSize_ = bufferSize_ > offset ? bufferSize_ - offset : 0;
    return sub;
  }

  T GetValue(const uint64_t offset,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) const {
    T value;
    aopt_sim::rt::gm_scalar(bytes_at(offset), sizeof(T), false, &value, "GlobalTensor::GetValue",
                            site);
    return value;
  }

  void SetValue(const uint64_t offset, const T& value,
                aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    T stored = value;
    aopt_sim::rt::gm_scalar(bytes_at(offset), sizeof(T), true, &stored, "GlobalTensor::SetValue",
                            site);
  }

  // `gm(i)`: a reference to element i as AscendC returns it; the proxy makes the read or write
  // a traced scalar GM access (GetValue/SetValue).
  detail::global_element<T> operator()(
      const uint64_t offset,
      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) const {
    return detail::global_element<T>(*this, offset, site);
  }

  __gm__ T* GetPhyAddr() const { return address_; }
  __gm__ T* GetPhyAddr(const uint64_t offset) const { return address_ + offset; }
  uint64_t GetSize() const { return bufferSize_; }
  void SetL2CacheHint(CacheMode) {}

  // Public in AscendC too; kernels occasionally read it.
  __gm__ T* address_ = nullptr;
  uint64_t bufferSize_ = 0;

 private:
  uint8_t* bytes_at(uint64_t offset) const {
    return reinterpret_cast<uint8_t*>(address_) + offset * sizeof(T);
  }
};

template <typename T>
class LocalTensor;

namespace detail {

// `tensor(i)` in AscendC yields a reference to an element; the proxy traces the read or write.
template <typename T>
class local_element {
 public:
  local_element(const LocalTensor<T>& t, uint32_t index, aopt_sim::rt::call_site site)
      : tensor_(t), index_(index), site_(site) {}
  operator T() const { return tensor_.GetValue(index_, site_); }  // NOLINT
  local_element& operator=(const T& v) {
    tensor_.SetValue(index_, v, site_);
    return *this;
  }
  // `t(i) = t(j)` copies the element (DrivingSDK's roipoint_pool3d repeats sampled indices so).
  local_element& operator=(const local_element& other) { return *this = static_cast<T>(other); }
  local_element& operator+=(const T& v) {
    return *this = static_cast<T>(static_cast<T>(*this) + v);
  }
  local_element& operator-=(const T& v) {
    return *this = static_cast<T>(static_cast<T>(*this) - v);
  }

 private:
  LocalTensor<T> tensor_;  // a copy (a reference and a size): the proxy may outlive a temporary
  uint32_t index_;
  aopt_sim::rt::call_site site_;
};

}  // namespace detail

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;
  LocalTensor(const aopt_sim::rt::local_ref& ref, uint32_t size) : ref_(ref), size_(size) {}
  LocalTensor(const LocalTensor&) = default;
  LocalTensor& operator=(const LocalTensor&) = default;

  // `dst = src0 + src1`, `dst = src0 < src1`, ...: the whole-tensor operators
  // (tensor_operators.h) run the vector instruction into this tensor.
  template <typename E, typename = typename E::aopt_tensor_expr>
  LocalTensor& operator=(const E& expr) {
    expr.assign_to(*this, aopt_sim::rt::call_site(__builtin_LINE()));
    return *this;
  }

  LocalTensor operator[](const uint32_t offset) const {
    LocalTensor sub = *this;
    sub.ref_.addr = ref_.addr + offset * static_cast<uint32_t>(sizeof(T));
    sub.size_ = size_ > offset ? size_ - offset : 0;
    return sub;
  }

  T GetValue(const uint32_t index,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) const {
    T value;
    std::memcpy(&value,
                aopt_sim::rt::ub_scalar(ref_, uint64_t{index} * sizeof(T), sizeof(T), false,
                                        "LocalTensor::GetValue", site),
                sizeof(T));
    return value;
  }

  void SetValue(const uint32_t index, const T& value,
                aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) const {
    std::memcpy(aopt_sim::rt::ub_scalar(ref_, uint64_t{index} * sizeof(T), sizeof(T), true,
                                        "LocalTensor::SetValue", site),
                &value, sizeof(T));
  }

  detail::local_element<T> operator()(
      const uint32_t index,
      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) const {
    return detail::local_element<T>(*this, index, site);
  }

  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(ref_, static_cast<uint32_t>(uint64_t{size_} * sizeof(T) / sizeof(U)));
  }

  uint32_t GetSize() const { return size_; }
  void SetSize(const uint32_t size) { size_ = size; }
  uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
  // A pointer into the simulated Unified Buffer (unchecked: prefer GetValue/SetValue).
  __ubuf__ T* GetPhyAddr() const {
    return reinterpret_cast<T*>(aopt_sim::rt::ub_base() + ref_.addr);
  }
  __ubuf__ T* GetPhyAddr(const uint32_t offset) const { return GetPhyAddr() + offset; }

  const aopt_sim::rt::local_ref& aopt_ref() const { return ref_; }

 private:
  aopt_sim::rt::local_ref ref_;
  uint32_t size_ = 0;
};

}  // namespace AscendC
