// op.json's "validation_shapes" (issue 17 item 6): extra shapes the tuning never sees, checked
// for correctness only on an operator's final best.
//
//   "validation_shapes": [{"x": [1024, 2048], "y": [1024, 2048], "z": [1024, 2048]}]
//
// Each entry maps tensor names (inputs and outputs) to a shape of the tensor's rank; a tensor
// not named keeps its shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "npu/op_spec.hpp"

namespace aopt::npu {

// The entries of `op_json` (op.json's object) for the operator `spec` parsed from it; none when
// the key is absent. Errors name the entry and tensor ("validation_shapes[0].x: ...").
result<std::vector<shape_set>> parse_validation_shapes(const nlohmann::json& op_json,
                                                       const op_spec& spec);

// `op` with the shapes of `shapes`: the package to evaluate a candidate on a validation shape.
op_package with_shapes(const op_package& op, const shape_set& shapes);

// "x [4, 4096], y [4, 4096]": how reports and reasons name a validation shape.
std::string describe_shapes(const shape_set& shapes);

}  // namespace aopt::npu
