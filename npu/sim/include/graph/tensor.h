// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// ge::Shape and ge::TensorDesc: what graph-mode shape functions (ge::Operator) read and update.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace ge {

constexpr int64_t UNKNOWN_DIM = -1;
constexpr int64_t UNKNOWN_DIM_NUM = -2;

class Shape {
 public:
  // Out of line (runtime/host_graph_tensor.cpp): compiled once into the simulator library, so a
  // host unit instantiates no vector for a shape it never builds.
  Shape();
  explicit Shape(std::vector<int64_t> dims);
  Shape(const Shape& other);
  Shape(Shape&& other) noexcept;
  Shape& operator=(const Shape& other);
  Shape& operator=(Shape&& other) noexcept;
  ~Shape();

  size_t GetDimNum() const;
  int64_t GetDim(size_t idx) const;
  graphStatus SetDim(size_t idx, int64_t value);
  std::vector<int64_t> GetDims() const;
  // The element count; 0 for a shape with an unknown dimension (documented behaviour).
  int64_t GetShapeSize() const;

 private:
  std::vector<int64_t> dims_;
};

class TensorDesc {
 public:
  TensorDesc() = default;
  explicit TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT)
      : shape_(shape),
        origin_shape_(std::move(shape)),
        format_(format),
        origin_format_(format),
        dtype_(dt) {}

  Shape GetShape() const { return shape_; }
  void SetShape(const Shape& shape) { shape_ = shape; }
  Shape GetOriginShape() const { return origin_shape_; }
  void SetOriginShape(const Shape& shape) { origin_shape_ = shape; }
  Format GetFormat() const { return format_; }
  void SetFormat(Format format) { format_ = format; }
  Format GetOriginFormat() const { return origin_format_; }
  void SetOriginFormat(Format format) { origin_format_ = format; }
  DataType GetDataType() const { return dtype_; }
  void SetDataType(DataType dt) { dtype_ = dt; }

 private:
  Shape shape_;
  Shape origin_shape_;
  Format format_ = FORMAT_ND;
  Format origin_format_ = FORMAT_ND;
  DataType dtype_ = DT_FLOAT;
};

}  // namespace ge
