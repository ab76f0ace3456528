// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// ge::Operator: the graph-mode view of one operator that shape functions written with
// IMPLEMT_COMMON_INFERFUNC / IMPLEMT_INFERFUNC receive: input and output tensor descriptions
// by name or index, and attributes by name. Inputs, outputs and attributes are declared by the
// operator's registration (REG_OP-generated subclasses call the protected *Register methods).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/tensor.h"

namespace ge {

class Operator {
 public:
  Operator() = default;
  explicit Operator(const char* type) : type_(type == nullptr ? "" : type) {}
  Operator(const AscendString& name, const AscendString& type)
      : name_(name.GetString()), type_(type.GetString()) {}
  virtual ~Operator() = default;

  graphStatus GetName(AscendString& name) const {
    name = AscendString(name_.c_str());
    return GRAPH_SUCCESS;
  }
  graphStatus GetOpType(AscendString& type) const {
    type = AscendString(type_.c_str());
    return GRAPH_SUCCESS;
  }

  size_t GetInputsSize() const { return inputs_.size(); }
  size_t GetOutputsSize() const { return outputs_.size(); }

  // An unknown name or index yields an empty TensorDesc, as documented.
  TensorDesc GetInputDesc(const char* name) const { return find(inputs_, name); }
  TensorDesc GetInputDescByName(const char* name) const { return find(inputs_, name); }
  TensorDesc GetInputDesc(uint32_t index) const { return at(inputs_, index); }
  TensorDesc GetOutputDesc(const char* name) const { return find(outputs_, name); }
  TensorDesc GetOutputDescByName(const char* name) const { return find(outputs_, name); }
  TensorDesc GetOutputDesc(uint32_t index) const { return at(outputs_, index); }

  graphStatus UpdateInputDesc(const char* name, const TensorDesc& desc) {
    return update(inputs_, name, desc);
  }
  graphStatus UpdateOutputDesc(const char* name, const TensorDesc& desc) {
    return update(outputs_, name, desc);
  }

  template <typename T>
  Operator& SetAttr(const char* name, T&& value) {
    attrs_[name == nullptr ? "" : name] = attr_value(std::forward<T>(value));
    return *this;
  }
  Operator& SetAttr(const char* name, const char* value) {
    return SetAttr(name, std::string(value == nullptr ? "" : value));
  }
  Operator& SetAttr(const char* name, const AscendString& value) {
    return SetAttr(name, std::string(value.GetString()));
  }

  // GRAPH_FAILED when the attribute is not set or holds another type.
  graphStatus GetAttr(const char* name, int64_t& value) const { return get(name, value); }
  graphStatus GetAttr(const char* name, int32_t& value) const {
    int64_t v = 0;
    const graphStatus st = get(name, v);
    if (st == GRAPH_SUCCESS) value = static_cast<int32_t>(v);
    return st;
  }
  graphStatus GetAttr(const char* name, float& value) const { return get(name, value); }
  graphStatus GetAttr(const char* name, bool& value) const { return get(name, value); }
  graphStatus GetAttr(const char* name, std::string& value) const { return get(name, value); }
  graphStatus GetAttr(const char* name, AscendString& value) const {
    std::string v;
    const graphStatus st = get(name, v);
    if (st == GRAPH_SUCCESS) value = AscendString(v.c_str());
    return st;
  }
  graphStatus GetAttr(const char* name, std::vector<int64_t>& value) const {
    return get(name, value);
  }
  graphStatus GetAttr(const char* name, std::vector<float>& value) const {
    return get(name, value);
  }

 protected:
  void InputRegister(const char* name) { inputs_.emplace_back(name, TensorDesc()); }
  void OptionalInputRegister(const char* name) { InputRegister(name); }
  void OutputRegister(const char* name) { outputs_.emplace_back(name, TensorDesc()); }

 private:
  using attr_value =
      std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>>;
  using port_list = std::vector<std::pair<std::string, TensorDesc>>;

  static TensorDesc find(const port_list& ports, const char* name) {
    for (const auto& p : ports)
      if (name != nullptr && p.first == name) return p.second;
    return TensorDesc();
  }
  static TensorDesc at(const port_list& ports, uint32_t index) {
    return index < ports.size() ? ports[index].second : TensorDesc();
  }
  static graphStatus update(port_list& ports, const char* name, const TensorDesc& desc) {
    for (auto& p : ports) {
      if (name != nullptr && p.first == name) {
        p.second = desc;
        return GRAPH_SUCCESS;
      }
    }
    return GRAPH_FAILED;
  }
  template <typename T>
  graphStatus get(const char* name, T& value) const {
    const auto it = attrs_.find(name == nullptr ? "" : name);
    if (it == attrs_.end() || !std::holds_alternative<T>(it->second)) return GRAPH_FAILED;
    value = std::get<T>(it->second);
    return GRAPH_SUCCESS;
  }

  std::string name_;
  std::string type_;
  port_list inputs_;
  port_list outputs_;
  std::map<std::string, attr_value> attrs_;
};

}  // namespace ge
