// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// The shape-function macros of graph-mode operator prototypes.
#pragma once

#include "graph/operator.h"

// A shape function over a plain ge::Operator, and its registration for an operator type. The
// simulator runs tiling, not graph compilation, so registration records nothing; the function
// stays an ordinary function that tests and tools can call.
#define IMPLEMT_COMMON_INFERFUNC(func_name) \
  [[maybe_unused]] static ge::graphStatus func_name(ge::Operator& op)
#define COMMON_INFER_FUNC_REG(op_name, x) \
  static_assert(sizeof(#op_name) > 1, "COMMON_INFER_FUNC_REG needs an operator name")
#define INFER_FUNC_REG(op_name, x) \
  static_assert(sizeof(#op_name) > 1, "INFER_FUNC_REG needs an operator name")
