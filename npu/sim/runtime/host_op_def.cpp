// ops::OpDef's recording members (register/op_def.h), compiled once into the simulator library
// instead of in every host unit: an operator's OpDef constructor calls them, and inlined they
// tripled the compile time of a tiling program.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "register/op_def.h"

namespace ops {

namespace {

std::string number(double value) {
  if (!(value == value) || value > 1e308 || value < -1e308) return "null";  // NaN, inf
  char text[64];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

template <typename T, typename Format>
std::string json_list(const std::vector<T>& values, Format format) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + format(values[i]);
  return text + "]";
}

}  // namespace

OpParamDef::OpParamDef() = default;
OpParamDef::OpParamDef(const char* name) {
  record_.name = name;
}
OpParamDef::OpParamDef(const OpParamDef&) = default;
OpParamDef& OpParamDef::operator=(const OpParamDef&) = default;
OpParamDef::~OpParamDef() = default;

OpParamDef& OpParamDef::ParamType(Option o) {
  record_.param_type = o;
  return *this;
}
OpParamDef& OpParamDef::DataType(const std::vector<ge::DataType>& types) {
  record_.dtypes = types;
  return *this;
}
OpParamDef& OpParamDef::DataTypeList(const std::vector<ge::DataType>& types) {
  record_.dtypes = types;
  return *this;
}
OpParamDef& OpParamDef::Format(const std::vector<ge::Format>& formats) {
  record_.formats = formats;
  return *this;
}
OpParamDef& OpParamDef::FormatList(const std::vector<ge::Format>& formats) {
  record_.formats = formats;
  return *this;
}

OpAttrDef::OpAttrDef() = default;
OpAttrDef::OpAttrDef(const char* name) {
  record_.name = name;
}
OpAttrDef::OpAttrDef(const OpAttrDef&) = default;
OpAttrDef& OpAttrDef::operator=(const OpAttrDef&) = default;
OpAttrDef::~OpAttrDef() = default;

OpAttrDef& OpAttrDef::AttrType(Option o) {
  record_.attr_type = o;
  return *this;
}
OpAttrDef& OpAttrDef::Bool(bool value) {
  return typed("bool", value ? "true" : "false");
}
OpAttrDef& OpAttrDef::Float(float value) {
  return typed("float", number(value));
}
OpAttrDef& OpAttrDef::Int(int64_t value) {
  return typed("int", std::to_string(value));
}
OpAttrDef& OpAttrDef::String(const char* value) {
  return typed("string", aopt_sim::json_quoted(value == nullptr ? "" : value));
}
OpAttrDef& OpAttrDef::ListBool(const std::vector<bool>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    text += (i ? "," : "") + std::string(values[i] ? "true" : "false");
  }
  return typed("list_bool", text + "]");
}
OpAttrDef& OpAttrDef::ListFloat(const std::vector<float>& values) {
  return typed("list_float", json_list(values, [](float v) { return number(v); }));
}
OpAttrDef& OpAttrDef::ListInt(const std::vector<int64_t>& values) {
  return typed("list_int", json_list(values, [](int64_t v) { return std::to_string(v); }));
}
OpAttrDef& OpAttrDef::ListListInt(const std::vector<std::vector<int64_t>>&) {
  return typed("list_list_int", "null");
}
OpAttrDef& OpAttrDef::typed(const char* type, std::string value) {
  record_.type = type;
  record_.value = std::move(value);
  return *this;
}

OpAICoreDef::OpAICoreDef() = default;
OpAICoreDef::OpAICoreDef(const char* op_type) : op_type_(op_type) {}
OpAICoreDef::OpAICoreDef(const OpAICoreDef&) = default;
OpAICoreDef& OpAICoreDef::operator=(const OpAICoreDef&) = default;
OpAICoreDef::~OpAICoreDef() = default;

OpDef::OpDef(const char* op_type) : op_type_(op_type), aicore_(op_type) {}
OpDef::~OpDef() = default;
OpParamDef& OpDef::Input(const char* name) {
  return inputs_.emplace_back(name);
}
OpParamDef& OpDef::Output(const char* name) {
  return outputs_.emplace_back(name);
}
OpAttrDef& OpDef::Attr(const char* name) {
  return attrs_.emplace_back(name);
}

aopt_sim::op_def_description OpDef::aopt_description() const {
  aopt_sim::op_def_description d;
  d.op_type = op_type_;
  for (const auto& p : inputs_) d.inputs.push_back(p.aopt_record());
  for (const auto& p : outputs_) d.outputs.push_back(p.aopt_record());
  for (const auto& a : attrs_) d.attrs.push_back(a.aopt_record());
  return d;
}

}  // namespace ops

namespace aopt_sim {

void record_op_def(const ops::OpDef& def) {
  op_def_descriptions().push_back(def.aopt_description());
}

}  // namespace aopt_sim
