// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// Enough of gert::InferDataTypeContext for an operator's InferDataType function to compile and run.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "graph/types.h"

namespace gert {

class InferDataTypeContext {
 public:
  // The node type defaults to the node name: the simulator runs one operator, named by its type.
  // The members that touch a container are out of line (runtime/host_runtime_contexts.cpp):
  // compiled once into the simulator library, not in every host unit.
  explicit InferDataTypeContext(std::string node_name = "aopt_op", std::string node_type = "");
  ~InferDataTypeContext();

  // aopt API (not CANN)
  void add_input(ge::DataType type);
  void add_output(ge::DataType type = ge::DT_UNDEFINED);
  RuntimeAttrs& mutable_attrs() { return attrs_; }

  const char* GetNodeName() const { return node_name_.c_str(); }
  const char* GetNodeType() const { return node_type_.c_str(); }
  ge::DataType GetInputDataType(size_t index) const;
  ge::DataType GetOptionalInputDataType(size_t index) const { return GetInputDataType(index); }
  ge::DataType GetRequiredInputDataType(size_t index) const { return GetInputDataType(index); }
  ge::DataType GetDynamicInputDataType(size_t ir_index, size_t relative_index) const {
    return GetInputDataType(ir_index + relative_index);
  }
  ge::DataType GetOutputDataType(size_t index) const;
  ge::graphStatus SetOutputDataType(size_t index, ge::DataType type);
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }

 private:
  std::string node_name_;
  std::string node_type_;
  std::vector<ge::DataType> inputs_;
  std::vector<ge::DataType> outputs_;
  RuntimeAttrs attrs_;
};

}  // namespace gert
