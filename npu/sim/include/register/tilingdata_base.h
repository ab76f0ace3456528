// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
//
// Tiling data classes, declared in namespace optiling:
//
//   BEGIN_TILING_DATA_DEF(AddCustomTilingData)
//     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
//     TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, tileOffsets);
//     TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);   // InnerTiling defined the same way
//   END_TILING_DATA_DEF;                                         (the ';' is optional)
//   REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)   (a trailing ';' is optional)
//
// Each field is a plain public member with set_<f>()/get_<f>(); SaveToBuffer copies the object
// bytes, so the kernel's GET_TILING_DATA (aopt_sim/tiling_data.h) reads back exactly this layout.
//
// Registration: the build force-includes the tiling header into the kernel translation unit
// with -DAOPT_TILING_OP_NAME="<op.json name>", and GET_TILING_DATA reads the class registered
// for that op type, matched ignoring case and underscores, else the first class registered
// (aopt_sim/tiling_registry.h). A header may register several classes, or one class for several
// op types. -DAOPT_TILING_OP_TYPE=<OpType> names the op type exactly.
// The newer plain-struct style (GET_TILING_DATA_WITH_STRUCT) needs no registration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "aopt_sim/tiling_registry.h"

namespace aopt_sim {

// SaveToBuffer of a tiling class: copies `size` bytes or throws naming the class.
inline void save_tiling_data(const void* object, size_t size, void* buffer, size_t capacity,
                             const char* class_name) {
  if (buffer == nullptr) {
    throw std::invalid_argument(std::string("SaveToBuffer of tiling data ") + class_name +
                                ": null buffer");
  }
  if (size > capacity) {
    throw std::length_error(std::string("SaveToBuffer of tiling data ") + class_name + ": " +
                            std::to_string(size) + " bytes exceed the buffer capacity of " +
                            std::to_string(capacity) + " bytes");
  }
  std::memcpy(buffer, object, size);
}

}  // namespace aopt_sim

#define BEGIN_TILING_DATA_DEF(class_name) \
  class class_name {                      \
   public:                                \
    using aopt_self_type = class_name;    \
    static const char* aopt_class_name() { return #class_name; }

#define TILING_DATA_FIELD_DEF(data_type, field_name)   \
  data_type field_name = data_type();                  \
  void set_##field_name(data_type aopt_field_value_) { \
    field_name = aopt_field_value_;                    \
  }                                                    \
  data_type get_##field_name() const {                 \
    return field_name;                                 \
  }

#define TILING_DATA_FIELD_DEF_ARR(data_type, array_size, field_name) \
  data_type field_name[array_size] = {};                             \
  void set_##field_name(const data_type* aopt_field_values_) {       \
    std::memcpy(field_name, aopt_field_values_, sizeof(field_name)); \
  }                                                                  \
  data_type* get_##field_name() {                                    \
    return field_name;                                               \
  }                                                                  \
  const data_type* get_##field_name() const {                        \
    return field_name;                                               \
  }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)   \
  struct_type field_name;                                       \
  void set_##field_name(const struct_type& aopt_field_value_) { \
    field_name = aopt_field_value_;                             \
  }                                                             \
  struct_type& get_##field_name() {                             \
    return field_name;                                          \
  }                                                             \
  const struct_type& get_##field_name() const {                 \
    return field_name;                                          \
  }

// CANN operators write END_TILING_DATA_DEF with and without a trailing semicolon: the class
// definition ends here, and an extra ';' is an empty declaration at namespace scope.
#define END_TILING_DATA_DEF                                                      \
  size_t GetDataSize() const {                                                   \
    return sizeof(aopt_self_type);                                               \
  }                                                                              \
  void SaveToBuffer(void* buffer, size_t capacity) const {                       \
    static_assert(std::is_trivially_copyable<aopt_self_type>::value,             \
                  "tiling data fields must be trivially copyable");              \
    ::aopt_sim::save_tiling_data(this, sizeof(aopt_self_type), buffer, capacity, \
                                 aopt_class_name());                             \
  }                                                                              \
  }                                                                              \
  ;

// CANN operators write the registration with and without a trailing semicolon; each expansion
// ends in a complete declaration, so an extra one is an empty declaration at namespace scope.
// Registrations are written in namespace optiling, as CANN's are.
#define AOPT_REGISTER_TILING_DATA_CLASS_COMMON(op_type, class_name)   \
  struct aopt_tiling_of_##op_type {                                   \
    using type = class_name;                                          \
  };                                                                  \
  template <>                                                         \
  struct aopt_tiling_for_op_type<::aopt_sim::op_type_key(#op_type)> { \
    using type = class_name;                                          \
  };                                                                  \
  template <>                                                         \
  struct aopt_tiling_registration<__COUNTER__> {                      \
    using type = class_name;                                          \
  };
// Outside a kernel build (tests) the alias names the registered class; a second registration of
// another class conflicts only there. aopt's generated units define AOPT_TILING_ALIAS empty
// (after the precompiled header, and before this header when the precompiled one lacks it)
// instead of defining AOPT_TILING_OP_NAME on the command line: GCC drops a precompiled header
// that a macro defined before it could change.
#ifndef AOPT_TILING_ALIAS
#define AOPT_TILING_ALIAS(class_name) using aopt_registered_tiling_t = class_name;
#endif
#if defined(AOPT_TILING_OP_TYPE) || defined(AOPT_TILING_OP_NAME)
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
  AOPT_REGISTER_TILING_DATA_CLASS_COMMON(op_type, class_name)
#else
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)       \
  AOPT_REGISTER_TILING_DATA_CLASS_COMMON(op_type, class_name) \
  AOPT_TILING_ALIAS(class_name)
#endif
