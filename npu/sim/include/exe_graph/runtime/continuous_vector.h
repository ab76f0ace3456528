// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// List attributes (ListInt, ListFloat, ListBool) as tiling code reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gert {

class ContinuousVector {
 public:
  size_t GetSize() const { return size_; }
  size_t GetCapacity() const { return size_; }
  const void* GetData() const { return words_.data(); }

 protected:
  ContinuousVector();  // out of line (runtime/host_runtime_contexts.cpp)
  template <typename T>
  void assign(const T* values, size_t n) {
    size_ = n;
    const size_t word_count = (n * sizeof(T) + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    words_.assign(word_count == 0 ? 1 : word_count, 0);
    if (n > 0) std::memcpy(words_.data(), values, n * sizeof(T));
  }
  uint64_t* words() { return words_.data(); }
  const uint64_t* words() const { return words_.data(); }

 private:
  size_t size_ = 0;
  std::vector<uint64_t> words_;  // 8-byte aligned element storage, at least one word
};

template <typename T>
class TypedContinuousVector : public ContinuousVector {
 public:
  TypedContinuousVector() = default;
  explicit TypedContinuousVector(const std::vector<T>& values) {
    assign(values.data(), values.size());
  }

  const T* GetData() const { return reinterpret_cast<const T*>(words()); }
  T* MutableData() { return reinterpret_cast<T*>(words()); }
};

// std::vector<bool> has no data(); list-of-bool attributes are stored as bytes.
template <>
class TypedContinuousVector<bool> : public ContinuousVector {
 public:
  TypedContinuousVector() = default;
  // Out of line (runtime/host_runtime_contexts.cpp).
  explicit TypedContinuousVector(const std::vector<bool>& values);
  const bool* GetData() const { return reinterpret_cast<const bool*>(words()); }
};

}  // namespace gert
