// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
//
// Tiling data classes, declared in namespace optiling:
//
//   BEGIN_TILING_DATA_DEF(AddCustomTilingData)
//     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
//     TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, tileOffsets);
//     TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);   // InnerTiling defined the same way
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)   (a trailing ';' is optional)
//
// Each field is a plain public member with set_<f>()/get_<f>(); SaveToBuffer copies the object
// bytes, so the kernel's GET_TILING_DATA (aopt_sim/tiling_data.h) reads back exactly this layout.
//
// Registration: the build force-includes the tiling header into the kernel translation unit, and
// REGISTER_TILING_DATA_CLASS names the class GET_TILING_DATA copies through the alias
// optiling::aopt_registered_tiling_t. Hence ONE registration per operator: a second
// REGISTER_TILING_DATA_CLASS with another class (e.g. registering a nested struct) is a
// redefinition error. Such operators compile with -DAOPT_TILING_OP_TYPE=<OpType>: then
// registrations define no alias and GET_TILING_DATA uses the class registered for that op type.
// The newer plain-struct style (GET_TILING_DATA_WITH_STRUCT) needs no registration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

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
  }

// CANN operators write the registration with and without a trailing semicolon; each expansion
// ends in a complete declaration, so an extra one is an empty declaration at namespace scope.
#if defined(AOPT_TILING_OP_TYPE)
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
  struct aopt_tiling_of_##op_type {                     \
    using type = class_name;                            \
  };
#else
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
  struct aopt_tiling_of_##op_type {                     \
    using type = class_name;                            \
  };                                                    \
  using aopt_registered_tiling_t = class_name;
#endif
