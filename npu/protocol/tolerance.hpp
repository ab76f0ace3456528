// How close an output must come to the reference: op.json's "tolerance" object, or the
// per-dtype default of each output when op.json names none.
#pragma once

#include "npu/protocol/dtype.hpp"

namespace aopt::npu {

struct tolerance {
  double rtol = 1e-3;
  double atol = 1e-3;
  double max_error_ratio = 1e-3;  // fraction of elements allowed outside rtol/atol
};

// CANN-style per-dtype defaults (float32 1e-4, float16 1e-3, bfloat16 4e-3, integers and bool
// exact).
tolerance default_tolerance(dtype t);

}  // namespace aopt::npu
