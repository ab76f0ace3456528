#include "npu/validation_shapes.hpp"

namespace aopt::npu {

op_package with_shapes(const op_package& op, const shape_set& shapes) {
  op_package out = op;
  for (auto* list : {&out.spec.inputs, &out.spec.outputs}) {
    for (auto& t : *list) {
      if (auto it = shapes.find(t.name); it != shapes.end()) t.shape = it->second;
    }
  }
  return out;
}

}  // namespace aopt::npu
