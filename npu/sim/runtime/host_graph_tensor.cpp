// ge::Shape's members (graph/tensor.h), compiled once into the simulator library: inline in the
// header, every host and reference unit instantiated the vector of dimensions they use.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/tensor.h"

namespace ge {

Shape::Shape() = default;

Shape::Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

Shape::Shape(const Shape& other) = default;

Shape::Shape(Shape&& other) noexcept = default;

Shape& Shape::operator=(const Shape& other) = default;

Shape& Shape::operator=(Shape&& other) noexcept = default;

Shape::~Shape() = default;

size_t Shape::GetDimNum() const {
  return dims_.size();
}

int64_t Shape::GetDim(size_t idx) const {
  return idx < dims_.size() ? dims_[idx] : 0;
}

graphStatus Shape::SetDim(size_t idx, int64_t value) {
  if (idx >= dims_.size()) return GRAPH_FAILED;
  dims_[idx] = value;
  return GRAPH_SUCCESS;
}

std::vector<int64_t> Shape::GetDims() const {
  return dims_;
}

int64_t Shape::GetShapeSize() const {
  if (dims_.empty()) return 0;
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d < 0) return 0;
    n *= d;
  }
  return n;
}

}  // namespace ge
