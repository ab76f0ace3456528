// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// Tensor descriptions a TilingContext hands out: the compile-time description (dtype, format) and
// the runtime tensor (shape and, for inputs, the host copy of the data the kernel will see).
#pragma once

#include <cstdint>

#include "exe_graph/runtime/storage_shape.h"
#include "graph/types.h"

namespace gert {

class CompileTimeTensorDesc {
 public:
  CompileTimeTensorDesc() = default;
  CompileTimeTensorDesc(ge::DataType type, ge::Format format)
      : type_(type), origin_format_(format), storage_format_(format) {}

  ge::DataType GetDataType() const { return type_; }
  ge::Format GetOriginFormat() const { return origin_format_; }
  ge::Format GetStorageFormat() const { return storage_format_; }
  void SetDataType(ge::DataType type) { type_ = type; }
  void SetOriginFormat(ge::Format format) { origin_format_ = format; }
  void SetStorageFormat(ge::Format format) { storage_format_ = format; }

 private:
  ge::DataType type_ = ge::DT_FLOAT;
  ge::Format origin_format_ = ge::FORMAT_ND;
  ge::Format storage_format_ = ge::FORMAT_ND;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(const StorageShape& shape, ge::DataType type, const void* data)
      : shape_(shape), type_(type), data_(data) {}

  const StorageShape& GetShape() const { return shape_; }
  const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
  const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
  StorageShape& MutableShape() { return shape_; }
  int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
  ge::DataType GetDataType() const { return type_; }
  ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
  ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }

  // Host data of an input declared value-depending (op.json "value_depend", CANN's
  // ValueDepend): the exact values of this run; nullptr for any other input and for outputs.
  template <typename T>
  const T* GetData() const {
    return static_cast<const T*>(data_);
  }
  const void* GetAddr() const { return data_; }

 private:
  StorageShape shape_;
  ge::DataType type_ = ge::DT_FLOAT;
  const void* data_ = nullptr;
};

}  // namespace gert
