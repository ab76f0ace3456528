#include "driver_spec.hpp"

#include <stdexcept>

namespace aopt::sim {
namespace {

using json = nlohmann::json;

// No tensor the simulator can hold in memory comes near this; it keeps byte counts from
// overflowing.
constexpr uint64_t max_tensor_elements = uint64_t{1} << 36;

[[noreturn]] void reject(const std::string& field, const std::string& reason) {
  throw std::invalid_argument(field + ": " + reason);
}

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string read_string(const json& obj, const std::string& path, const char* key,
                        const std::string& fallback, bool required = false) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    if (required) reject(path + key, "missing");
    return fallback;
  }
  if (!v->is_string()) reject(path + key, "expected a string, got " + v->dump());
  return v->get<std::string>();
}

double read_number(const json& obj, const std::string& path, const char* key, double fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) reject(path + key, "expected a number, got " + v->dump());
  return v->get<double>();
}

uint64_t read_unsigned(const json& obj, const std::string& path, const char* key,
                       uint64_t fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) return fallback;
  // JSON built in C++ stores a literal 0 as a signed integer; accept every non-negative one.
  if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<int64_t>() < 0)) {
    reject(path + key, "expected a non-negative integer, got " + v->dump());
  }
  return v->get<uint64_t>();
}

driver_tensor parse_tensor(const json& j, const std::string& path, bool is_input) {
  if (!j.is_object()) reject(path, "expected an object, got " + j.dump());
  driver_tensor t;
  t.name = read_string(j, path + ".", "name", "", true);
  const std::string type = read_string(j, path + ".", "dtype", "", true);
  if (!parse_element_type(type, t.type)) reject(path + ".dtype", "unknown dtype '" + type + "'");
  const json* shape = find(j, "shape");
  if (shape == nullptr) reject(path + ".shape", "missing");
  if (!shape->is_array()) reject(path + ".shape", "expected an array, got " + shape->dump());
  uint64_t numel = 1;
  for (size_t i = 0; i < shape->size(); ++i) {
    const json& d = (*shape)[i];
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      reject(path + ".shape[" + std::to_string(i) + "]",
             "expected a non-negative integer, got " + d.dump());
    }
    const auto dim = static_cast<uint64_t>(d.get<int64_t>());
    if (dim != 0 && numel > max_tensor_elements / dim) {
      reject(path + ".shape", "more than 2^36 elements");
    }
    numel *= dim;
    t.shape.push_back(d.get<int64_t>());
  }
  const bool unsigned_type = t.type == element_type::uint8 || t.type == element_type::boolean;
  t.range_lo = unsigned_type ? 0 : -1;
  t.range_hi = 1;
  if (const json* range = find(j, "range"); range != nullptr && is_input) {
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
        !(*range)[1].is_number()) {
      reject(path + ".range", "expected [lo, hi], got " + range->dump());
    }
    t.range_lo = (*range)[0].get<double>();
    t.range_hi = (*range)[1].get<double>();
    if (!(t.range_lo <= t.range_hi)) reject(path + ".range", "lo exceeds hi: " + range->dump());
  }
  return t;
}

std::vector<driver_tensor> parse_tensors(const json& op, const char* key, bool is_input) {
  std::vector<driver_tensor> out;
  const json* list = find(op, key);
  const std::string path = std::string("op.") + key;
  if (list == nullptr) {
    if (!is_input) reject(path, "missing");
    return out;
  }
  if (!list->is_array()) reject(path, "expected an array, got " + list->dump());
  for (size_t i = 0; i < list->size(); ++i) {
    out.push_back(parse_tensor((*list)[i], path + "[" + std::to_string(i) + "]", is_input));
  }
  if (!is_input && out.empty()) reject(path, "an operator needs at least one output");
  return out;
}

bool value_matches(const std::string& type, const json& v) {
  auto all = [&](auto pred) {
    if (!v.is_array()) return false;
    for (const auto& e : v) {
      if (!pred(e)) return false;
    }
    return true;
  };
  if (type == "float") return v.is_number();
  if (type == "int") return v.is_number_integer();
  if (type == "bool") return v.is_boolean();
  if (type == "string") return v.is_string();
  if (type == "list_int") return all([](const json& e) { return e.is_number_integer(); });
  if (type == "list_float") return all([](const json& e) { return e.is_number(); });
  return false;
}

std::vector<driver_attr> parse_attrs(const json& op) {
  std::vector<driver_attr> out;
  const json* list = find(op, "attrs");
  if (list == nullptr) return out;
  if (!list->is_array()) reject("op.attrs", "expected an array, got " + list->dump());
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string path = "op.attrs[" + std::to_string(i) + "]";
    const json& a = (*list)[i];
    if (!a.is_object()) reject(path, "expected an object, got " + a.dump());
    driver_attr attr;
    attr.name = read_string(a, path + ".", "name", "", true);
    attr.type = read_string(a, path + ".", "type", "", true);
    const json* value = find(a, "value");
    if (value == nullptr) reject(path + ".value", "missing");
    if (!value_matches(attr.type, *value)) {
      reject(path + ".value", value->dump() + " is not a " + attr.type);
    }
    attr.value = *value;
    out.push_back(std::move(attr));
  }
  return out;
}

driver_op parse_op(const json& j) {
  if (!j.is_object()) reject("op", "expected an object");
  driver_op op;
  op.name = read_string(j, "op.", "name", "", true);
  op.kernel_entry = read_string(j, "op.", "kernel_entry", op.name);
  op.tiling_func = read_string(j, "op.", "tiling_func", op.tiling_func);
  op.inputs = parse_tensors(j, "inputs", true);
  op.outputs = parse_tensors(j, "outputs", false);
  op.attrs = parse_attrs(j);
  if (const json* tol = find(j, "tolerance"); tol != nullptr) {
    if (!tol->is_object()) reject("op.tolerance", "expected an object, got " + tol->dump());
    op.has_tolerance = true;
    op.tol.rtol = read_number(*tol, "op.tolerance.", "rtol", op.tol.rtol);
    op.tol.atol = read_number(*tol, "op.tolerance.", "atol", op.tol.atol);
    op.tol.max_error_ratio =
        read_number(*tol, "op.tolerance.", "max_error_ratio", op.tol.max_error_ratio);
    if (op.tol.rtol < 0 || op.tol.atol < 0 || op.tol.max_error_ratio < 0 ||
        op.tol.max_error_ratio > 1) {
      reject("op.tolerance", "values must be >= 0 and max_error_ratio <= 1");
    }
  }
  op.seed = read_unsigned(j, "op.", "seed", op.seed);
  op.category = read_string(j, "op.", "category", "");
  return op;
}

}  // namespace

uint64_t driver_tensor::numel() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

uint64_t driver_tensor::bytes() const {
  return numel() * element_size(type);
}

driver_tolerance default_tolerance(element_type t) {
  switch (t) {
    case element_type::float32:
      return {1e-4, 1e-4, 1e-4};
    case element_type::float16:
      return {1e-3, 1e-3, 1e-3};
    case element_type::bfloat16:
      return {4e-3, 4e-3, 4e-3};
    default:
      return {0, 0, 0};
  }
}

driver_tolerance driver_op::tolerance_for(const driver_tensor& output) const {
  return has_tolerance ? tol : default_tolerance(output.type);
}

uint64_t driver_op::io_bytes() const {
  uint64_t total = 0;
  for (const auto& t : inputs) total += t.bytes();
  for (const auto& t : outputs) total += t.bytes();
  return total;
}

driver_spec parse_driver_spec(const json& j) {
  if (!j.is_object()) reject("spec", "expected a JSON object");
  driver_spec spec;
  const json* op = find(j, "op");
  if (op == nullptr) reject("op", "missing");
  spec.op = parse_op(*op);
  if (const json* hw = find(j, "hw"); hw != nullptr) spec.hw = hw->get<hw_profile>();
  const uint64_t sets = read_unsigned(j, "", "input_sets", spec.input_sets);
  if (sets < 1 || sets > 100) reject("input_sets", "expected 1..100, got " + std::to_string(sets));
  spec.input_sets = static_cast<uint32_t>(sets);
  if (const json* races = find(j, "detect_races"); races != nullptr) {
    if (!races->is_boolean()) reject("detect_races", "expected a boolean, got " + races->dump());
    spec.detect_races = races->get<bool>();
  }
  spec.noise_stddev_fraction = read_number(j, "", "noise_stddev_fraction", 0);
  if (!(spec.noise_stddev_fraction >= 0 && spec.noise_stddev_fraction < 1)) {
    reject("noise_stddev_fraction", "expected a value in [0, 1)");
  }
  spec.noise_seed = read_unsigned(j, "", "noise_seed", 0);
  const uint64_t reps = read_unsigned(j, "", "repetitions", spec.repetitions);
  if (reps < 1 || reps > 10000) {
    reject("repetitions", "expected 1..10000, got " + std::to_string(reps));
  }
  spec.repetitions = static_cast<uint32_t>(reps);
  return spec;
}

}  // namespace aopt::sim
