// The members of the host shim's runtime contexts that touch a standard container
// (exe_graph/runtime/: the tiling, InferShape, InferDataType and InferShapeRange contexts, the
// attributes, the tiling data and continuous vectors; platform/platform_infos_def.h), compiled once
// into the simulator library. Inline in the headers, every host and reference unit instantiated the
// containers' templates they use, whether it called them or not: GCC instantiates at the end of
// each unit what the precompiled header's inline bodies name.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "aopt_sim/tiling_parse_registry.h"
#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_data.h"
#include "platform/platform_infos_def.h"

namespace gert {

TilingContext::TilingContext(std::string node_name, std::string node_type, size_t tiling_capacity)
    : node_name_(std::move(node_name)),
      node_type_(std::move(node_type)),
      tiling_data_(tiling_capacity),
      workspace_sizes_(kMaxWorkspaceNum, 0) {}

TilingContext::~TilingContext() = default;

void TilingContext::add_input(ge::DataType type, const Shape& shape, const void* data) {
  inputs_.push_back(port{CompileTimeTensorDesc(type, ge::FORMAT_ND),
                         Tensor(StorageShape(shape, shape), type, data)});
}

void TilingContext::add_absent_input(ge::DataType type) {
  inputs_.push_back(port{CompileTimeTensorDesc(type, ge::FORMAT_ND), Tensor(), false});
}

void TilingContext::add_output(ge::DataType type, const Shape& shape) {
  outputs_.push_back(port{CompileTimeTensorDesc(type, ge::FORMAT_ND),
                          Tensor(StorageShape(shape, shape), type, nullptr)});
}

uint64_t TilingContext::workspace_bytes() const {
  uint64_t total = 0;
  for (size_t i = 0; i < workspace_num_; ++i) {
    const uint64_t size = workspace_sizes_[i];
    total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
  }
  return total;
}

size_t TilingContext::GetComputeNodeInputNum() const {
  size_t n = 0;
  for (const port& p : inputs_) n += p.present ? 1 : 0;
  return n;
}

size_t TilingContext::GetComputeNodeOutputNum() const {
  return outputs_.size();
}

const StorageShape* TilingContext::GetOutputShape(size_t index) const {
  return index < outputs_.size() ? &outputs_[index].tensor.GetShape() : nullptr;
}

const CompileTimeTensorDesc* TilingContext::GetOutputDesc(size_t index) const {
  return index < outputs_.size() ? &outputs_[index].desc : nullptr;
}

const void* TilingContext::GetCompileInfo() const {
  if (!compile_info_parsed_) {
    compile_info_parsed_ = true;
    if (const aopt_sim::tiling_parse_fn* parse = aopt_sim::registered_tiling_parse(node_type_))
      compile_info_ = (*parse)(&platform_, node_name_);
  }
  return compile_info_.get();
}

size_t* TilingContext::GetWorkspaceSizes(size_t count) {
  if (count > kMaxWorkspaceNum) return nullptr;
  if (count > workspace_num_) workspace_num_ = count;
  return workspace_sizes_.data();
}

const TilingContext::port* TilingContext::ir(size_t ir_index) const {
  return ir_index < inputs_.size() && inputs_[ir_index].present ? &inputs_[ir_index] : nullptr;
}

const TilingContext::port* TilingContext::instance(size_t index) const {
  for (const port& p : inputs_) {
    if (!p.present) continue;
    if (index == 0) return &p;
    --index;
  }
  return nullptr;
}

TilingData::TilingData(size_t capacity)
    : capacity_(capacity), words_((capacity + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1, 0) {}

void* TilingData::GetData() {
  return words_.data();
}

const void* TilingData::GetData() const {
  return words_.data();
}

ContinuousVector::ContinuousVector() : words_(1, 0) {}

TypedContinuousVector<bool>::TypedContinuousVector(const std::vector<bool>& values) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  assign(bytes.data(), bytes.size());
}

const int64_t* RuntimeAttrs::GetInt(size_t index) const {
  return GetAttrPointer<int64_t>(index);
}

const float* RuntimeAttrs::GetFloat(size_t index) const {
  return GetAttrPointer<float>(index);
}

const bool* RuntimeAttrs::GetBool(size_t index) const {
  return GetAttrPointer<bool>(index);
}

const char* RuntimeAttrs::GetStr(size_t index) const {
  return GetAttrPointer<char>(index);
}

const TypedContinuousVector<int64_t>* RuntimeAttrs::GetListInt(size_t index) const {
  return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
}

const TypedContinuousVector<float>* RuntimeAttrs::GetListFloat(size_t index) const {
  return GetAttrPointer<TypedContinuousVector<float>>(index);
}

const TypedContinuousVector<bool>* RuntimeAttrs::GetListBool(size_t index) const {
  return GetAttrPointer<TypedContinuousVector<bool>>(index);
}

RuntimeAttrs::slot& RuntimeAttrs::add_slot(kind which) {
  slot& s = slots_.emplace_back();
  s.which = which;
  return s;
}

template <typename T>
void RuntimeAttrs::add_scalar(kind which, T value) {
  std::memcpy(add_slot(which).scalar, &value, sizeof(T));
}

void RuntimeAttrs::add_int(int64_t value) {
  add_scalar(kind::integer, value);
}

void RuntimeAttrs::add_float(float value) {
  add_scalar(kind::floating, value);
}

void RuntimeAttrs::add_bool(bool value) {
  add_scalar(kind::boolean, value);
}

void RuntimeAttrs::add_string(std::string value) {
  add_slot(kind::string).text = std::move(value);
}

void RuntimeAttrs::add_list_int(const std::vector<int64_t>& values) {
  add_slot(kind::list_int).ints = TypedContinuousVector<int64_t>(values);
}

void RuntimeAttrs::add_list_float(const std::vector<float>& values) {
  add_slot(kind::list_float).floats = TypedContinuousVector<float>(values);
}

void RuntimeAttrs::add_list_bool(const std::vector<bool>& values) {
  add_slot(kind::list_bool).bools = TypedContinuousVector<bool>(values);
}

InferShapeContext::InferShapeContext(std::string node_name, std::string node_type)
    : node_name_(std::move(node_name)),
      node_type_(node_type.empty() ? node_name_ : std::move(node_type)) {}

InferShapeContext::~InferShapeContext() = default;

void InferShapeContext::add_input(const Shape& shape) {
  inputs_.push_back(shape);
}

void InferShapeContext::add_output(const Shape& shape) {
  outputs_.push_back(shape);
}

size_t InferShapeContext::GetComputeNodeInputNum() const {
  return inputs_.size();
}

const Shape* InferShapeContext::GetInputShape(size_t index) const {
  return index < inputs_.size() ? &inputs_[index] : nullptr;
}

Shape* InferShapeContext::GetOutputShape(size_t index) {
  return index < outputs_.size() ? &outputs_[index] : nullptr;
}

InferDataTypeContext::InferDataTypeContext(std::string node_name, std::string node_type)
    : node_name_(std::move(node_name)),
      node_type_(node_type.empty() ? node_name_ : std::move(node_type)) {}

InferDataTypeContext::~InferDataTypeContext() = default;

void InferDataTypeContext::add_input(ge::DataType type) {
  inputs_.push_back(type);
}

void InferDataTypeContext::add_output(ge::DataType type) {
  outputs_.push_back(type);
}

ge::DataType InferDataTypeContext::GetInputDataType(size_t index) const {
  return index < inputs_.size() ? inputs_[index] : ge::DT_UNDEFINED;
}

ge::DataType InferDataTypeContext::GetOutputDataType(size_t index) const {
  return index < outputs_.size() ? outputs_[index] : ge::DT_UNDEFINED;
}

ge::graphStatus InferDataTypeContext::SetOutputDataType(size_t index, ge::DataType type) {
  if (index >= outputs_.size()) return ge::GRAPH_FAILED;
  outputs_[index] = type;
  return ge::GRAPH_SUCCESS;
}

InferShapeRangeContext::InferShapeRangeContext() = default;

InferShapeRangeContext::~InferShapeRangeContext() = default;

void InferShapeRangeContext::add_input(const Range<Shape>& r) {
  inputs_.push_back(r);
}

void InferShapeRangeContext::add_output(const Range<Shape>& r) {
  outputs_.push_back(r);
}

const Range<Shape>* InferShapeRangeContext::GetInputShapeRange(size_t index) const {
  return index < inputs_.size() ? &inputs_[index] : nullptr;
}

Range<Shape>* InferShapeRangeContext::GetOutputShapeRange(size_t index) {
  return index < outputs_.size() ? &outputs_[index] : nullptr;
}

}  // namespace gert

namespace fe {

bool PlatFormInfos::GetPlatformRes(const std::string& label, const std::string& key,
                                   std::string& value) const {
  if (label == "version" && key == "SoC_version") {
    value = soc_version;
  } else if (label == "version" && key == "Short_SoC_version") {
    value = short_soc_version;
  } else if (label == "SoCInfo" && (key == "ai_core_cnt" || key == "cube_core_cnt")) {
    value = std::to_string(core_num_aic);
  } else if (label == "SoCInfo" && key == "vector_core_cnt") {
    value = std::to_string(core_num_aiv);
  } else {
    return false;
  }
  return true;
}

}  // namespace fe
