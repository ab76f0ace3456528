// ge::Operator's out-of-line members (graph/operator.h): the attribute map and the port lookups,
// compiled once into the simulator library instead of in every host unit.
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "graph/operator.h"

namespace ge {

struct Operator::attr_map {
  using value =
      std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>>;
  std::map<std::string, value> values;

  void set(const char* name, value v) { values[name == nullptr ? "" : name] = std::move(v); }

  template <typename T>
  graphStatus get(const char* name, T& out) const {
    const auto it = values.find(name == nullptr ? "" : name);
    if (it == values.end() || !std::holds_alternative<T>(it->second)) return GRAPH_FAILED;
    out = std::get<T>(it->second);
    return GRAPH_SUCCESS;
  }
};

namespace {

using port_list = std::vector<std::pair<std::string, TensorDesc>>;

TensorDesc find(const port_list& ports, const char* name) {
  for (const auto& p : ports)
    if (name != nullptr && p.first == name) return p.second;
  return TensorDesc();
}

TensorDesc at(const port_list& ports, uint32_t index) {
  return index < ports.size() ? ports[index].second : TensorDesc();
}

graphStatus update(port_list& ports, const char* name, const TensorDesc& desc) {
  for (auto& p : ports) {
    if (name != nullptr && p.first == name) {
      p.second = desc;
      return GRAPH_SUCCESS;
    }
  }
  return GRAPH_FAILED;
}

}  // namespace

Operator::Operator(const char* type) : type_(type == nullptr ? "" : type) {}
Operator::Operator(const AscendString& name, const AscendString& type)
    : name_(name.GetString()), type_(type.GetString()) {}
Operator::~Operator() = default;
Operator::Operator(const Operator& other)
    : name_(other.name_),
      type_(other.type_),
      inputs_(other.inputs_),
      outputs_(other.outputs_),
      attrs_(other.attrs_ ? std::make_unique<attr_map>(*other.attrs_) : nullptr) {}
Operator& Operator::operator=(const Operator& other) {
  if (this == &other) return *this;
  name_ = other.name_;
  type_ = other.type_;
  inputs_ = other.inputs_;
  outputs_ = other.outputs_;
  attrs_ = other.attrs_ ? std::make_unique<attr_map>(*other.attrs_) : nullptr;
  return *this;
}

graphStatus Operator::GetName(AscendString& name) const {
  name = AscendString(name_.c_str());
  return GRAPH_SUCCESS;
}
graphStatus Operator::GetOpType(AscendString& type) const {
  type = AscendString(type_.c_str());
  return GRAPH_SUCCESS;
}

TensorDesc Operator::GetInputDesc(const char* name) const {
  return find(inputs_, name);
}
TensorDesc Operator::GetInputDescByName(const char* name) const {
  return find(inputs_, name);
}
TensorDesc Operator::GetInputDesc(uint32_t index) const {
  return at(inputs_, index);
}
TensorDesc Operator::GetOutputDesc(const char* name) const {
  return find(outputs_, name);
}
TensorDesc Operator::GetOutputDescByName(const char* name) const {
  return find(outputs_, name);
}
TensorDesc Operator::GetOutputDesc(uint32_t index) const {
  return at(outputs_, index);
}

graphStatus Operator::UpdateInputDesc(const char* name, const TensorDesc& desc) {
  return update(inputs_, name, desc);
}
graphStatus Operator::UpdateOutputDesc(const char* name, const TensorDesc& desc) {
  return update(outputs_, name, desc);
}

Operator& Operator::SetAttr(const char* name, const char* value) {
  set_string(name, std::string(value == nullptr ? "" : value));
  return *this;
}
Operator& Operator::SetAttr(const char* name, const AscendString& value) {
  set_string(name, std::string(value.GetString()));
  return *this;
}

Operator::attr_map& Operator::attrs() {
  if (!attrs_) attrs_ = std::make_unique<attr_map>();
  return *attrs_;
}

void Operator::set_int(const char* name, int64_t value) {
  attrs().set(name, value);
}
void Operator::set_float(const char* name, float value) {
  attrs().set(name, value);
}
void Operator::set_bool(const char* name, bool value) {
  attrs().set(name, value);
}
void Operator::set_string(const char* name, std::string value) {
  attrs().set(name, std::move(value));
}
void Operator::set_ints(const char* name, std::vector<int64_t> value) {
  attrs().set(name, std::move(value));
}
void Operator::set_floats(const char* name, std::vector<float> value) {
  attrs().set(name, std::move(value));
}

graphStatus Operator::GetAttr(const char* name, int64_t& value) const {
  return attrs_ ? attrs_->get(name, value) : GRAPH_FAILED;
}
graphStatus Operator::GetAttr(const char* name, int32_t& value) const {
  int64_t v = 0;
  const graphStatus st = GetAttr(name, v);
  if (st == GRAPH_SUCCESS) value = static_cast<int32_t>(v);
  return st;
}
graphStatus Operator::GetAttr(const char* name, float& value) const {
  return attrs_ ? attrs_->get(name, value) : GRAPH_FAILED;
}
graphStatus Operator::GetAttr(const char* name, bool& value) const {
  return attrs_ ? attrs_->get(name, value) : GRAPH_FAILED;
}
graphStatus Operator::GetAttr(const char* name, std::string& value) const {
  return attrs_ ? attrs_->get(name, value) : GRAPH_FAILED;
}
graphStatus Operator::GetAttr(const char* name, AscendString& value) const {
  std::string v;
  const graphStatus st = GetAttr(name, v);
  if (st == GRAPH_SUCCESS) value = AscendString(v.c_str());
  return st;
}
graphStatus Operator::GetAttr(const char* name, std::vector<int64_t>& value) const {
  return attrs_ ? attrs_->get(name, value) : GRAPH_FAILED;
}
graphStatus Operator::GetAttr(const char* name, std::vector<float>& value) const {
  return attrs_ ? attrs_->get(name, value) : GRAPH_FAILED;
}

void Operator::InputRegister(const char* name) {
  inputs_.emplace_back(name, TensorDesc());
}
void Operator::OutputRegister(const char* name) {
  outputs_.emplace_back(name, TensorDesc());
}

}  // namespace ge
