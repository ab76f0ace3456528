// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// gert::Shape: up to kMaxDimNum dimensions, as tiling and InferShape code reads and writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "graph/ge_error_codes.h"

namespace gert {

class Shape {
 public:
  static constexpr size_t kMaxDimNum = 8;
  static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) AppendDim(d);
  }

  size_t GetDimNum() const { return dim_num_; }
  void SetDimNum(size_t n) { dim_num_ = n > kMaxDimNum ? kMaxDimNum : n; }

  // kInvalidDimValue when `index` is not below GetDimNum().
  int64_t GetDim(size_t index) const { return index < dim_num_ ? dims_[index] : kInvalidDimValue; }
  ge::graphStatus SetDim(size_t index, int64_t value) {
    if (index >= dim_num_) return ge::GRAPH_FAILED;
    dims_[index] = value;
    return ge::GRAPH_SUCCESS;
  }
  Shape& AppendDim(int64_t value) {
    if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = value;
    return *this;
  }

  // Number of elements: 1 for a scalar (no dimensions).
  int64_t GetShapeSize() const {
    int64_t size = 1;
    for (size_t i = 0; i < dim_num_; ++i) size *= dims_[i];
    return size;
  }
  bool IsScalar() const { return dim_num_ == 0; }

  const int64_t& operator[](size_t index) const { return dims_[index]; }
  int64_t& operator[](size_t index) { return dims_[index]; }

  bool operator==(const Shape& other) const {
    if (dim_num_ != other.dim_num_) return false;
    for (size_t i = 0; i < dim_num_; ++i) {
      if (dims_[i] != other.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  size_t dim_num_ = 0;
  int64_t dims_[kMaxDimNum] = {};
};

}  // namespace gert
