#include "npu/validation_shapes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
namespace aopt::npu {

op_package with_shapes(const op_package& op, const shape_set& shapes) {
  op_package out = op;
  for (auto* list : {&out.spec.inputs, &out.spec.outputs}) {
    for (auto& t : *list) {
      if (auto it = shapes.find(t.name); it != shapes.end()) t.shape = it->second;
    }
  }
  // An output updated in place is its input: it takes the input's shape.
  for (auto& t : out.spec.outputs) {
    if (auto it = shapes.find(t.inplace_of); it != shapes.end()) t.shape = it->second;
  }
  return out;
}

std::string describe_shapes(const shape_set& shapes) {
  std::string text;
  for (const auto& [tensor, dims] : shapes) {
    text += fmt::format("{}{} [{}]", text.empty() ? "" : ", ", tensor, fmt::join(dims, ", "));
  }
  return text;
}

}  // namespace aopt::npu
