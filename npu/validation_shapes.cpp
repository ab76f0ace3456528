#include "npu/validation_shapes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace aopt::npu {

result<std::vector<shape_set>> parse_validation_shapes(const nlohmann::json& op_json,
                                                       const op_spec& spec) {
  std::vector<shape_set> out;
  auto it = op_json.find("validation_shapes");
  if (it == op_json.end()) return out;
  if (!it->is_array()) {
    return invalid_argument("validation_shapes: expected an array, got " + it->dump());
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& entry = (*it)[i];
    const std::string where = fmt::format("validation_shapes[{}]", i);
    if (!entry.is_object() || entry.empty()) {
      return invalid_argument(where + ": expected an object of tensor name -> shape, got " +
                              entry.dump());
    }
    shape_set shapes;
    for (auto t = entry.begin(); t != entry.end(); ++t) {
      const tensor_spec* tensor = nullptr;
      for (const auto* list : {&spec.inputs, &spec.outputs}) {
        for (const auto& candidate : *list) {
          if (candidate.name == t.key()) tensor = &candidate;
        }
      }
      const std::string field = where + "." + t.key();
      if (tensor == nullptr) return invalid_argument(field + ": no input or output of that name");
      if (!t->is_array() || t->size() != tensor->shape.size()) {
        return invalid_argument(fmt::format("{}: expected a shape of rank {}, got {}", field,
                                            tensor->shape.size(), t->dump()));
      }
      std::vector<int64_t> shape;
      for (const nlohmann::json& d : *t) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1) {
          return invalid_argument(field + ": expected positive dimensions, got " + t->dump());
        }
        shape.push_back(d.get<int64_t>());
      }
      shapes[t.key()] = std::move(shape);
    }
    out.push_back(std::move(shapes));
  }
  return out;
}

op_package with_shapes(const op_package& op, const shape_set& shapes) {
  op_package out = op;
  for (auto* list : {&out.spec.inputs, &out.spec.outputs}) {
    for (auto& t : *list) {
      if (auto it = shapes.find(t.name); it != shapes.end()) t.shape = it->second;
    }
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
