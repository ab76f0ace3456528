// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// gert::TilingContext: what a TilingFunc reads (shapes, dtypes, attributes, platform) and writes
// (block dim, tiling key, tiling data, workspace sizes). The simulator's driver builds one per
// run with the snake_case add_*/set_* members, which are not CANN API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "aopt_sim/tiling_parse_registry.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/types.h"
#include "platform/platform_infos_def.h"

namespace gert {

class TilingContext {
 public:
  static constexpr size_t kDefaultTilingCapacity = 64 * 1024;
  static constexpr size_t kMaxWorkspaceNum = 16;

  // The members that touch the context's containers are out of line
  // (runtime/host_runtime_contexts.cpp): compiled once into the simulator library, not in every
  // host unit.
  explicit TilingContext(std::string node_name = "aopt_op", std::string node_type = "AoptOp",
                         size_t tiling_capacity = kDefaultTilingCapacity);
  ~TilingContext();

  // ---- aopt driver API (not CANN) ----
  // `data` must outlive the context (the host copy of the input the kernel will read).
  void add_input(ge::DataType type, const Shape& shape, const void* data = nullptr);
  // An optional input the call leaves out (op.json "absent"): it keeps its place among the
  // prototype's (IR) inputs, where the Optional getters answer nullptr, but is not instantiated,
  // so the getters by instance index skip it as CANN's do.
  void add_absent_input(ge::DataType type);
  void add_output(ge::DataType type, const Shape& shape);
  RuntimeAttrs& mutable_attrs() { return attrs_; }
  fe::PlatFormInfos& mutable_platform() { return platform_; }
  // Workspace entries requested through GetWorkspaceSizes(n): the largest n asked for.
  size_t workspace_num() const { return workspace_num_; }
  // Sum of the requested workspace sizes, saturating instead of wrapping.
  uint64_t workspace_bytes() const;
  uint32_t schedule_mode() const { return schedule_mode_; }

  // ---- CANN API ----
  const char* GetNodeName() const { return node_name_.c_str(); }
  const char* GetNodeType() const { return node_type_.c_str(); }
  size_t GetComputeNodeInputNum() const;
  size_t GetComputeNodeOutputNum() const;

  // By the instance index: the inputs the call holds, absent optional ones skipped.
  const StorageShape* GetInputShape(size_t index) const {
    const port* p = instance(index);
    return p != nullptr ? &p->tensor.GetShape() : nullptr;
  }
  // By the prototype (IR) index; nullptr for an optional input the call leaves out.
  const StorageShape* GetOptionalInputShape(size_t ir_index) const {
    const port* p = ir(ir_index);
    return p != nullptr ? &p->tensor.GetShape() : nullptr;
  }
  const StorageShape* GetRequiredInputShape(size_t ir_index) const {
    return GetOptionalInputShape(ir_index);
  }
  // op.json has no dynamic (list) inputs: each list element is its own input, so the element
  // `relative_index` of list `ir_index` is input ir_index + relative_index.
  const StorageShape* GetDynamicInputShape(size_t ir_index, size_t relative_index) const {
    return GetOptionalInputShape(ir_index + relative_index);
  }
  const StorageShape* GetOutputShape(size_t index) const;
  const Tensor* GetInputTensor(size_t index) const {
    const port* p = instance(index);
    return p != nullptr ? &p->tensor : nullptr;
  }
  const Tensor* GetOptionalInputTensor(size_t ir_index) const {
    const port* p = ir(ir_index);
    return p != nullptr ? &p->tensor : nullptr;
  }
  const Tensor* GetRequiredInputTensor(size_t ir_index) const {
    return GetOptionalInputTensor(ir_index);
  }
  const Tensor* GetDynamicInputTensor(size_t ir_index, size_t relative_index) const {
    return GetOptionalInputTensor(ir_index + relative_index);
  }
  const CompileTimeTensorDesc* GetInputDesc(size_t index) const {
    const port* p = instance(index);
    return p != nullptr ? &p->desc : nullptr;
  }
  const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir_index) const {
    const port* p = ir(ir_index);
    return p != nullptr ? &p->desc : nullptr;
  }
  const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir_index) const {
    return GetOptionalInputDesc(ir_index);
  }
  const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir_index, size_t relative_index) const {
    return GetOptionalInputDesc(ir_index + relative_index);
  }
  const CompileTimeTensorDesc* GetOutputDesc(size_t index) const;
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  fe::PlatFormInfos* GetPlatformInfo() const { return &platform_; }

  ge::graphStatus SetBlockDim(uint32_t block_dim) {
    block_dim_ = block_dim;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetBlockDim() const { return block_dim_; }
  ge::graphStatus SetTilingKey(uint64_t key) {
    tiling_key_ = key;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const { return tiling_key_; }
  ge::graphStatus SetScheduleMode(uint32_t mode) {
    schedule_mode_ = mode;
    return ge::GRAPH_SUCCESS;
  }
  ge::graphStatus SetNeedAtomic(bool need) {
    need_atomic_ = need;
    return ge::GRAPH_SUCCESS;
  }
  bool NeedAtomic() const { return need_atomic_; }
  // The local memory (the SIMT data cache) the kernel asks for; recorded, the simulated cores
  // have no such cache to size.
  ge::graphStatus SetLocalMemorySize(uint32_t bytes) {
    local_memory_size_ = bytes;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetLocalMemorySize() const { return local_memory_size_; }
  int32_t GetDeterministic() const { return 1; }

  // What the op's registered TilingParse function filled (run on the first call), or nullptr
  // when none is registered for this op type or it failed.
  const void* GetCompileInfo() const;
  template <typename T>
  const T* GetCompileInfo() const {
    return static_cast<const T*>(GetCompileInfo());
  }

  TilingData* GetRawTilingData() { return &tiling_data_; }
  const TilingData* GetRawTilingData() const { return &tiling_data_; }

  // Newer style: the tiling is a plain struct written in place; its size becomes the data size.
  template <typename T>
  T* GetTilingData() {
    static_assert(std::is_trivially_copyable<T>::value, "GetTilingData: T must be a plain struct");
    if (sizeof(T) > tiling_data_.GetCapacity()) return nullptr;
    if (tiling_data_.GetDataSize() < sizeof(T)) tiling_data_.SetDataSize(sizeof(T));
    return static_cast<T*>(tiling_data_.GetData());
  }

  // Sizes in bytes of `count` workspaces, zero-initialised; nullptr above kMaxWorkspaceNum.
  size_t* GetWorkspaceSizes(size_t count);
  size_t GetWorkspaceNum() const { return workspace_num_; }

 private:
  struct port {
    CompileTimeTensorDesc desc;
    Tensor tensor;
    bool present = true;
  };

  const port* ir(size_t ir_index) const;
  const port* instance(size_t index) const;

  std::string node_name_;
  std::string node_type_;
  std::vector<port> inputs_;
  std::vector<port> outputs_;
  RuntimeAttrs attrs_;
  // CANN hands out a mutable platform pointer from a const context.
  mutable fe::PlatFormInfos platform_;
  TilingData tiling_data_;
  std::vector<size_t> workspace_sizes_;
  size_t workspace_num_ = 0;
  uint32_t block_dim_ = 0;
  uint64_t tiling_key_ = 0;
  uint32_t schedule_mode_ = 0;
  uint32_t local_memory_size_ = 0;
  bool need_atomic_ = false;
  mutable bool compile_info_parsed_ = false;
  mutable std::shared_ptr<void> compile_info_;
};

}  // namespace gert
