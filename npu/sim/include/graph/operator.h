// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// ge::Operator: the graph-mode view of one operator that shape functions written with
// IMPLEMT_COMMON_INFERFUNC / IMPLEMT_INFERFUNC receive: input and output tensor descriptions
// by name or index, and attributes by name. Inputs, outputs and attributes are declared by the
// operator's registration (REG_OP-generated subclasses call the protected *Register methods).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/tensor.h"

namespace ge {

// The bodies that touch the attribute map are out of line (npu/sim/runtime/host_operator.cpp, in
// the simulator library every candidate links): inline, every host unit instantiated the
// std::map and std::variant code they use, about a third of a Stage I compile, whether or not
// the tiling program ever names ge::Operator.
class Operator {
 public:
  Operator() = default;
  explicit Operator(const char* type);
  Operator(const AscendString& name, const AscendString& type);
  virtual ~Operator();
  Operator(const Operator&);
  Operator& operator=(const Operator&);

  graphStatus GetName(AscendString& name) const;
  graphStatus GetOpType(AscendString& type) const;

  size_t GetInputsSize() const { return inputs_.size(); }
  size_t GetOutputsSize() const { return outputs_.size(); }

  // An unknown name or index yields an empty TensorDesc, as documented.
  TensorDesc GetInputDesc(const char* name) const;
  TensorDesc GetInputDescByName(const char* name) const;
  TensorDesc GetInputDesc(uint32_t index) const;
  TensorDesc GetOutputDesc(const char* name) const;
  TensorDesc GetOutputDescByName(const char* name) const;
  TensorDesc GetOutputDesc(uint32_t index) const;

  graphStatus UpdateInputDesc(const char* name, const TensorDesc& desc);
  graphStatus UpdateOutputDesc(const char* name, const TensorDesc& desc);

  // The attribute types of the map (std::variant's alternatives); another T does not compile.
  template <typename T>
  Operator& SetAttr(const char* name, T&& value) {
    using V = std::decay_t<T>;
    if constexpr (std::is_same_v<V, bool>) {
      set_bool(name, value);
    } else if constexpr (std::is_floating_point_v<V>) {
      set_float(name, static_cast<float>(value));
    } else if constexpr (std::is_integral_v<V>) {
      set_int(name, static_cast<int64_t>(value));
    } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
      set_ints(name, value);
    } else if constexpr (std::is_same_v<V, std::vector<float>>) {
      set_floats(name, value);
    } else {
      set_string(name, std::string(std::forward<T>(value)));
    }
    return *this;
  }
  Operator& SetAttr(const char* name, const char* value);
  Operator& SetAttr(const char* name, const AscendString& value);

  // GRAPH_FAILED when the attribute is not set or holds another type.
  graphStatus GetAttr(const char* name, int64_t& value) const;
  graphStatus GetAttr(const char* name, int32_t& value) const;
  graphStatus GetAttr(const char* name, float& value) const;
  graphStatus GetAttr(const char* name, bool& value) const;
  graphStatus GetAttr(const char* name, std::string& value) const;
  graphStatus GetAttr(const char* name, AscendString& value) const;
  graphStatus GetAttr(const char* name, std::vector<int64_t>& value) const;
  graphStatus GetAttr(const char* name, std::vector<float>& value) const;

 protected:
  void InputRegister(const char* name);
  void OptionalInputRegister(const char* name) { InputRegister(name); }
  void OutputRegister(const char* name);

 private:
  struct attr_map;  // name -> std::variant of the attribute types
  using port_list = std::vector<std::pair<std::string, TensorDesc>>;

  attr_map& attrs();  // created on the first SetAttr
  void set_int(const char* name, int64_t value);
  void set_float(const char* name, float value);
  void set_bool(const char* name, bool value);
  void set_string(const char* name, std::string value);
  void set_ints(const char* name, std::vector<int64_t> value);
  void set_floats(const char* name, std::vector<float> value);

  std::string name_;
  std::string type_;
  port_list inputs_;
  port_list outputs_;
  std::unique_ptr<attr_map> attrs_;
};

}  // namespace ge
