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
  explicit InferShapeContext(std::string node_name = "aopt_op", std::string node_type = "")
      : node_name_(std::move(node_name)),
        node_type_(node_type.empty() ? node_name_ : std::move(node_type)) {}

  // aopt API (not CANN)
  void add_input(const Shape& shape) { inputs_.push_back(shape); }
  void add_output(const Shape& shape = Shape()) { outputs_.push_back(shape); }
  RuntimeAttrs& mutable_attrs() { return attrs_; }

  const char* GetNodeName() const { return node_name_.c_str(); }
  const char* GetNodeType() const { return node_type_.c_str(); }
  size_t GetComputeNodeInputNum() const { return inputs_.size(); }
  const Shape* GetInputShape(size_t index) const {
    return index < inputs_.size() ? &inputs_[index] : nullptr;
  }
  const Shape* GetOptionalInputShape(size_t index) const { return GetInputShape(index); }
  const Shape* GetRequiredInputShape(size_t index) const { return GetInputShape(index); }
  const Shape* GetDynamicInputShape(size_t ir_index, size_t relative_index) const {
    return GetInputShape(ir_index + relative_index);
  }
  Shape* GetOutputShape(size_t index) {
    return index < outputs_.size() ? &outputs_[index] : nullptr;
  }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }

 private:
  std::string node_name_;
  std::string node_type_;
  std::vector<Shape> inputs_;
  std::vector<Shape> outputs_;
  RuntimeAttrs attrs_;
};

}  // namespace gert
