// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// IMPL_OP* registrations bind functions to an op type. Tiling(f) registers the operator's
// tiling function (aopt_sim/tiling_function_registry.h), which the generated aopt_tiling_entry
// calls unless op.json names a callable one; InferShape, InferDataType and InferShapeRange
// registrations are kept for compilation only; TilingParse<CompileInfo>(f) is
// registered for real (aopt_sim/tiling_parse_registry.h) and feeds
// TilingContext::GetCompileInfo.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "aopt_sim/tiling_function_registry.h"
#include "aopt_sim/tiling_parse_registry.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"

namespace gert {

class OpImplRegisterV2 {
 public:
  explicit OpImplRegisterV2(const char* op_type) : op_type_(op_type) {}
  template <typename F>
  OpImplRegisterV2& Tiling(F tiling, size_t = 0) {
    aopt_sim::register_tiling_function(op_type_, tiling);
    return *this;
  }
  template <typename CompileInfo = void, typename F = void*>
  OpImplRegisterV2& TilingParse(F parse) {
    if constexpr (!std::is_void_v<CompileInfo>)
      aopt_sim::register_tiling_parse<CompileInfo>(op_type_, parse);
    return *this;
  }
  template <typename F>
  OpImplRegisterV2& InferShape(F) {
    return *this;
  }
  template <typename F>
  OpImplRegisterV2& InferDataType(F) {
    return *this;
  }
  template <typename F>
  OpImplRegisterV2& InferShapeRange(F) {
    return *this;
  }
  OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t>) { return *this; }

 private:
  std::string op_type_;
};

}  // namespace gert

#define AOPT_IMPL_OP_CONCAT_INNER(a, b) a##b
#define AOPT_IMPL_OP_CONCAT(a, b) AOPT_IMPL_OP_CONCAT_INNER(a, b)
#define IMPL_OP(op_type)                                                \
  [[maybe_unused]] static ::gert::OpImplRegisterV2 AOPT_IMPL_OP_CONCAT( \
      aopt_impl_op_, __COUNTER__) = ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
