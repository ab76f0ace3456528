// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// The simulator has no private storage formats (everything is ND), so both shapes are equal
// unless code changes one of them.
#pragma once

#include "exe_graph/runtime/shape.h"

namespace gert {

class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}

  const Shape& GetOriginShape() const { return origin_; }
  const Shape& GetStorageShape() const { return storage_; }
  Shape& MutableOriginShape() { return origin_; }
  Shape& MutableStorageShape() { return storage_; }

  bool operator==(const StorageShape& other) const {
    return origin_ == other.origin_ && storage_ == other.storage_;
  }
  bool operator!=(const StorageShape& other) const { return !(*this == other); }

 private:
  Shape origin_;
  Shape storage_;
};

}  // namespace gert
