// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// Enough of gert::InferShapeContext for an operator's InferShape function to compile and run
// (the simulator takes output shapes from op.json and never calls InferShape itself).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tensor.h"

namespace gert {

class InferShapeContext {
 public:
  // The node type defaults to the node name: the simulator runs one operator, named by its type.
  // The members that touch a container are out of line (runtime/host_runtime_contexts.cpp):
  // compiled once into the simulator library, not in every host unit.
  explicit InferShapeContext(std::string node_name = "aopt_op", std::string node_type = "");
  ~InferShapeContext();

  // aopt API (not CANN)
  void add_input(const Shape& shape);
  void add_output(const Shape& shape = Shape());
  RuntimeAttrs& mutable_attrs() { return attrs_; }

  const char* GetNodeName() const { return node_name_.c_str(); }
  const char* GetNodeType() const { return node_type_.c_str(); }
  size_t GetComputeNodeInputNum() const;
  const Shape* GetInputShape(size_t index) const;
  const Shape* GetOptionalInputShape(size_t index) const { return GetInputShape(index); }
  const Shape* GetRequiredInputShape(size_t index) const { return GetInputShape(index); }
  const Shape* GetDynamicInputShape(size_t ir_index, size_t relative_index) const {
    return GetInputShape(ir_index + relative_index);
  }
  Shape* GetOutputShape(size_t index);
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }

 private:
  std::string node_name_;
  std::string node_type_;
  std::vector<Shape> inputs_;
  std::vector<Shape> outputs_;
  RuntimeAttrs attrs_;
};

}  // namespace gert
