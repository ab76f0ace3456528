// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// Operator attributes by index (the order of op.json's "attrs"), typed as CANN stores them:
// Int -> int64_t, Float -> float, Bool -> bool, String -> char, ListInt/ListFloat/ListBool ->
// TypedContinuousVector. Reading an attribute as another kind (an Int as float, a Float as a
// list) returns nullptr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"

namespace gert {

class RuntimeAttrs {
 public:
  size_t GetAttrNum() const { return slots_.size(); }

  template <typename T>
  const T* GetAttrPointer(size_t index) const {
    if (index >= slots_.size()) return nullptr;
    const slot& s = slots_[index];
    if constexpr (std::is_same<T, char>::value) {
      return s.which == kind::string ? s.text.c_str() : nullptr;
    } else if constexpr (std::is_same<T, ContinuousVector>::value) {
      switch (s.which) {
        case kind::list_int:
          return &s.ints;
        case kind::list_float:
          return &s.floats;
        case kind::list_bool:
          return &s.bools;
        default:
          return nullptr;
      }
    } else if constexpr (std::is_same<T, TypedContinuousVector<int64_t>>::value) {
      return s.which == kind::list_int ? &s.ints : nullptr;
    } else if constexpr (std::is_same<T, TypedContinuousVector<float>>::value) {
      return s.which == kind::list_float ? &s.floats : nullptr;
    } else if constexpr (std::is_same<T, TypedContinuousVector<bool>>::value) {
      return s.which == kind::list_bool ? &s.bools : nullptr;
    } else {
      static_assert(std::is_arithmetic<T>::value, "GetAttrPointer: unsupported type");
      static_assert(sizeof(T) <= sizeof(s.scalar), "GetAttrPointer: type wider than a scalar");
      // CANN's context answers a typed read of a scalar attribute with the attribute's storage
      // whatever its declared type: GetAttrPointer<uint32_t> of a bool attribute reads the bool's
      // byte and the zero bytes after it; narrower integer reads see the low bytes
      // (little-endian), as on the real runtime.
      const bool scalar =
          s.which == kind::integer || s.which == kind::floating || s.which == kind::boolean;
      return scalar ? reinterpret_cast<const T*>(s.scalar) : nullptr;
    }
  }

  // The named getters and the driver's add_* members are out of line
  // (runtime/host_runtime_contexts.cpp): compiled once into the simulator library, not in every
  // host unit.
  const int64_t* GetInt(size_t index) const;
  const float* GetFloat(size_t index) const;
  const bool* GetBool(size_t index) const;
  const char* GetStr(size_t index) const;
  const TypedContinuousVector<int64_t>* GetListInt(size_t index) const;
  const TypedContinuousVector<float>* GetListFloat(size_t index) const;
  const TypedContinuousVector<bool>* GetListBool(size_t index) const;

  // aopt: the driver appends attributes in op.json order (not CANN API).
  void add_int(int64_t value);
  void add_float(float value);
  void add_bool(bool value);
  void add_string(std::string value);
  void add_list_int(const std::vector<int64_t>& values);
  void add_list_float(const std::vector<float>& values);
  void add_list_bool(const std::vector<bool>& values);

 private:
  enum class kind { integer, floating, boolean, string, list_int, list_float, list_bool };
  struct slot {
    kind which = kind::integer;
    alignas(8) unsigned char scalar[8] = {};
    std::string text;
    TypedContinuousVector<int64_t> ints;
    TypedContinuousVector<float> floats;
    TypedContinuousVector<bool> bools;
  };

  // A new slot of kind `which` at the end, for the add_* members to fill.
  slot& add_slot(kind which);
  template <typename T>
  void add_scalar(kind which, T value);

  std::vector<slot> slots_;
};

}  // namespace gert
