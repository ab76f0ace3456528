// op.json's "validation_shapes" (issue 17 item 6; parsed with op.json, npu/protocol/op_spec.hpp):
// extra shapes the tuning never sees, checked for correctness only on an operator's final best.
#pragma once

#include "npu/op_package.hpp"

namespace aopt::npu {

// `op` with the shapes of `shapes`: the package to evaluate a candidate on a validation shape.
op_package with_shapes(const op_package& op, const shape_set& shapes);

// "x [4, 4096], y [4, 4096]": how reports and reasons name a validation shape.
std::string describe_shapes(const shape_set& shapes);

}  // namespace aopt::npu
