// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// The raw tiling buffer a TilingFunc fills (TilingContext::GetRawTilingData): the driver copies
// GetDataSize() bytes of it to the kernel's tiling argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/ge_error_codes.h"

namespace gert {

class TilingData {
 public:
  // Out of line (runtime/host_runtime_contexts.cpp), as the other members that touch a container.
  explicit TilingData(size_t capacity);

  void* GetData();
  const void* GetData() const;
  size_t GetCapacity() const { return capacity_; }
  size_t GetDataSize() const { return data_size_; }
  ge::graphStatus SetDataSize(size_t size) {
    if (size > capacity_) return ge::GRAPH_FAILED;
    data_size_ = size;
    return ge::GRAPH_SUCCESS;
  }

 private:
  size_t capacity_;
  size_t data_size_ = 0;
  std::vector<uint64_t> words_;  // zeroed, 8-byte aligned for GetTilingData<T>()
};

}  // namespace gert
