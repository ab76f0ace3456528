// aopt simulator: kernel-side tiling access (kernel_operator.h includes this).
//
//   GET_TILING_DATA(var, tiling)                     a copy of the class registered with
//                                                    REGISTER_TILING_DATA_CLASS for the
//                                                    operator (register/tilingdata_base.h)
//   GET_TILING_DATA_WITH_STRUCT(Struct, var, tiling) a copy of a plain struct
//   GET_TILING_DATA_PTR_WITH_STRUCT(Struct, ptr, tiling)  a pointer into the tiling buffer
//   GET_TILING_DATA_MEMBER(Struct, member, var, tiling)   a copy of one member
//   REGISTER_TILING_DEFAULT(Struct), REGISTER_TILING_FOR_TILINGKEY(cond, Struct): checked no-ops
//
// `tiling` is the kernel's GM_ADDR tiling argument, which holds the bytes the TilingFunc saved.
#pragma once

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "aopt_sim/tiling_registry.h"

namespace aopt_sim {

inline void load_tiling_data(void* object, size_t size, const void* tiling) {
  if (tiling == nullptr)
    throw std::invalid_argument("GET_TILING_DATA: the tiling argument is null");
  std::memcpy(object, tiling, size);
}

}  // namespace aopt_sim

// The real toolchain generates the kernel's copy of the tiling class at global scope, so kernels
// may name it unqualified; the simulator's tiling classes live in optiling.
namespace optiling {}
using namespace optiling;  // NOLINT(google-build-using-namespace)

#define AOPT_TILING_CONCAT_INNER(a, b) a##b
#define AOPT_TILING_CONCAT(a, b) AOPT_TILING_CONCAT_INNER(a, b)

// aopt's generated kernel unit defines AOPT_REGISTERED_TILING_TYPE itself (candidate_builder).
#if defined(AOPT_REGISTERED_TILING_TYPE)
#elif defined(AOPT_TILING_OP_TYPE)
#define AOPT_REGISTERED_TILING_TYPE \
  ::optiling::AOPT_TILING_CONCAT(aopt_tiling_of_, AOPT_TILING_OP_TYPE)::type
#elif defined(AOPT_TILING_OP_NAME)
#define AOPT_REGISTERED_TILING_TYPE \
  ::aopt_sim::registered_tiling_t<::aopt_sim::op_type_key(AOPT_TILING_OP_NAME)>
#else
#define AOPT_REGISTERED_TILING_TYPE ::optiling::aopt_registered_tiling_t
#endif

#define GET_TILING_DATA(var, tiling) \
  AOPT_REGISTERED_TILING_TYPE var;   \
  ::aopt_sim::load_tiling_data(&var, sizeof(var), (tiling))

#define GET_TILING_DATA_WITH_STRUCT(struct_type, var, tiling) \
  struct_type var;                                            \
  ::aopt_sim::load_tiling_data(&var, sizeof(var), (tiling))

#define GET_TILING_DATA_PTR_WITH_STRUCT(struct_type, ptr, tiling) \
  const struct_type* ptr = reinterpret_cast<const struct_type*>(tiling)

#define GET_TILING_DATA_MEMBER(struct_type, member, var, tiling) \
  decltype(struct_type::member) var;                             \
  ::aopt_sim::load_tiling_data(                                  \
      &var, sizeof(var),                                         \
      reinterpret_cast<const unsigned char*>(tiling) + offsetof(struct_type, member))

#define REGISTER_TILING_DEFAULT(struct_type) \
  static_assert(sizeof(struct_type) > 0, "REGISTER_TILING_DEFAULT")
#define REGISTER_TILING_FOR_TILINGKEY(condition, struct_type) \
  static_assert(sizeof(struct_type) > 0, "REGISTER_TILING_FOR_TILINGKEY")
