// aopt simulator, host side: the tiling functions an operator registers itself, by op type, as
// CANN finds them (issue 34): IMPL_OP_OPTILING(Op).Tiling(f) and an OpDef's
// this->AICore().SetTiling(f) (registered when the OpDef is constructed: OP_ADD records how,
// and the first lookup constructs every recorded OpDef, inside the launch rather than before
// main). So a tiling function in another namespace, or a template instance
// (TilingForBEVPoolV3<false>), works without op.json naming it.
// The registry lives in the candidate process only (one operator per process).
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "aopt_sim/tiling_registry.h"

namespace gert {
class TilingContext;
}

namespace aopt_sim {

using tiling_function = std::function<uint32_t(gert::TilingContext*)>;

struct tiling_function_entry {
  std::string op_type;
  tiling_function function;
};

struct tiling_function_registry {
  std::vector<tiling_function_entry> functions;
  std::vector<void (*)()> op_defs;  // OP_ADD: constructs the OpDef (which registers)
};

// The process's registry (runtime/host_registry.cpp).
tiling_function_registry& tiling_functions();

// A plain function (what nearly every operator registers), out of line: no std::function of a
// lambda to instantiate in each host unit.
void register_tiling_function(const std::string& op_type,
                              uint32_t (*function)(gert::TilingContext*));

// Any other callable of the context (a functor, a lambda with captures).
template <typename F>
void register_tiling_function(const std::string& op_type, F function) {
  if constexpr (std::is_invocable_v<F, gert::TilingContext*>) {
    if constexpr (std::is_pointer_v<F>) {
      if (function == nullptr) return;
    }
    tiling_functions().functions.push_back({op_type, [function](gert::TilingContext* context) {
                                              return static_cast<uint32_t>(function(context));
                                            }});
  }
}

// Constructs every OpDef OP_ADD recorded, once (they register their tiling functions and record
// their declarations, op_def_records.h).
void construct_op_defs();

// The tiling function registered for `op_name` (matched by op_type_key), or the only one when
// just one is registered; `registered_as` receives the op type it was registered under.
const tiling_function* registered_tiling_function(const char* op_name,
                                                  std::string* registered_as = nullptr);

// OP_ADD's record of an OpDef to construct at the first lookup.
struct op_def_record {
  explicit op_def_record(void (*construct)());  // out of line (runtime/host_registry.cpp)
};

}  // namespace aopt_sim
