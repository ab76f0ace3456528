#include "npu/protocol/op_spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include "npu/protocol/json_fields.hpp"

namespace aopt::npu {

namespace {

using json = nlohmann::json;

const char* const attr_types[] = {"float", "int", "bool", "list_int", "list_float", "string"};

// Far beyond what the simulator can hold; the bound keeps numel() and bytes() from overflowing.
constexpr int64_t max_tensor_elements = int64_t{1} << 32;

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// A package-relative path that stays inside the package.
bool is_package_path(const std::string& s) {
  if (s.empty() || s[0] == '/') return false;
  std::filesystem::path p(s);
  for (const auto& part : p) {
    if (part == "..") return false;
  }
  return true;
}

std::string type_name(const json& j) {
  return json_type_phrase(j);
}

// What loading may still complete from the OpDef and a test case (npu/op_json_completion.hpp):
// check_incomplete_op_spec lets it be left out, and skips the checks that depend on it.
struct leeway {
  bool allowed = false;               // false: parse_op_spec, everything must be there
  bool lists_left_out = false;        // "inputs" or "outputs" is missing
  std::set<std::string> unsettled{};  // tensors whose dtype or shape is missing

  bool unsettled_tensor(const std::string& name) const { return unsettled.count(name) != 0; }
};

// Field-by-field reader that keeps the path of the field ("inputs[1]") for error messages;
// the caller prefixes the file name.
class reader {
 public:
  explicit reader(std::string path = {}) : path_(std::move(path)) {}

  status error(const std::string& field, const std::string& reason) const {
    return invalid_argument(join(field) + ": " + reason);
  }
  status error(const std::string& reason) const {
    return invalid_argument(path_.empty() ? reason : path_ + ": " + reason);
  }
  std::string child(const std::string& field) const { return join(field); }
  std::string child(const std::string& field, size_t index) const {
    return join(field) + "[" + std::to_string(index) + "]";
  }

 private:
  std::string join(const std::string& field) const {
    return path_.empty() ? field : path_ + "." + field;
  }

  std::string path_;
};

status read_string(const json& obj, const reader& r, const char* key, bool required,
                   std::string& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return required ? r.error(key, "missing") : status{};
  if (!it->is_string()) return r.error(key, "expected a string, got " + type_name(*it));
  out = it->get<std::string>();
  return {};
}

status check_keys(const json& obj, const reader& r, std::initializer_list<const char*> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* a : allowed) known = known || it.key() == a;
    if (!known) return r.error(it.key(), "unknown key");
  }
  return {};
}

status read_number(const json& obj, const reader& r, const char* key, double& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  if (!it->is_number()) return r.error(key, "expected a number, got " + type_name(*it));
  out = it->get<double>();
  return {};
}

status read_flag(const json& obj, const reader& r, const char* key, bool allowed, bool& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  if (!allowed) return r.error(key, "only inputs can be declared so");
  if (!it->is_boolean()) return r.error(key, "expected true or false, got " + it->dump());
  out = it->get<bool>();
  return {};
}

status parse_shape(const json& shape, const reader& r, std::vector<int64_t>& out) {
  if (!shape.is_array()) return r.error("shape", "expected an array, got " + type_name(shape));
  out.clear();
  int64_t elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const json& d = shape[i];
    // A dimension of 0 leaves nothing to compute and makes tiling programs divide by zero.
    if (!d.is_number_integer() || d.get<int64_t>() < 1) {
      return r.error("shape[" + std::to_string(i) + "]",
                     "expected a positive integer, got " + d.dump());
    }
    const int64_t dim = d.get<int64_t>();
    if (dim > max_tensor_elements / elements) {
      return r.error("shape", shape.dump() + " has more than " +
                                  std::to_string(max_tensor_elements) + " elements");
    }
    elements *= dim;
    out.push_back(dim);
  }
  return {};
}

// An in-place output: what it takes from its input (dtype, shape) and its initial contents.
status parse_inplace(const json& j, const reader& r, const std::vector<tensor_spec>& inputs,
                     tensor_spec& t, const leeway& lw, bool ref_by_name) {
  AOPT_RETURN_IF_ERROR(read_string(j, r, "inplace", !ref_by_name, t.inplace_of));
  if (ref_by_name && t.inplace_of.empty()) t.inplace_of = t.name;
  if (ref_by_name && t.inplace_of != t.name) {
    return r.error("inplace", "an output named like input '" + t.name +
                                  "' is that input's ref output; it cannot update '" +
                                  t.inplace_of + "'");
  }
  if (j.contains("init")) {
    return r.error("init", "an in-place output starts as its input; it takes no init");
  }
  const auto source = std::find_if(inputs.begin(), inputs.end(),
                                   [&](const tensor_spec& in) { return in.name == t.inplace_of; });
  // The inputs to come from the OpDef, or the input's dtype or shape: checked once they did.
  if (source == inputs.end() && lw.lists_left_out) return {};
  if (source == inputs.end()) return r.error("inplace", "no input named '" + t.inplace_of + "'");
  if (source->absent) return r.error("inplace", "input '" + t.inplace_of + "' is absent");
  if (lw.unsettled_tensor(source->name)) return {};
  if (j.contains("dtype") && t.type != source->type) {
    return r.error("dtype", "differs from input '" + t.inplace_of + "' it updates in place");
  }
  if (j.contains("shape") && t.shape != source->shape) {
    return r.error("shape", "differs from input '" + t.inplace_of + "' it updates in place");
  }
  t.type = source->type;
  t.shape = source->shape;
  t.init = tensor_spec::initial::copy;
  t.init_source = t.inplace_of;
  return {};
}

// `inputs`: null while the inputs are parsed, the parsed inputs for outputs.
status parse_tensor(const json& j, const reader& r, const std::vector<tensor_spec>* inputs,
                    tensor_spec& t, leeway& lw) {
  const bool is_input = inputs == nullptr;
  if (!j.is_object()) return r.error("expected an object, got " + type_name(j));
  AOPT_RETURN_IF_ERROR(check_keys(j, r,
                                  {"name", "dtype", "shape", "range", "init", "distribution",
                                   "description", "absent", "scratch", "inplace", "value_depend"}));
  AOPT_RETURN_IF_ERROR(read_string(j, r, "name", true, t.name));
  if (!is_identifier(t.name)) return r.error("name", "'" + t.name + "' is not an identifier");
  AOPT_RETURN_IF_ERROR(read_flag(j, r, "absent", is_input, t.absent));
  AOPT_RETURN_IF_ERROR(read_flag(j, r, "scratch", is_input, t.scratch));
  if (t.absent && t.scratch) return r.error("scratch", "an absent input holds nothing to update");
  AOPT_RETURN_IF_ERROR(read_flag(j, r, "value_depend", is_input, t.value_depend));
  if (t.absent && t.value_depend)
    return r.error("value_depend", "an absent input holds no values to depend on");
  const bool ref_by_name =
      !is_input && std::any_of(inputs->begin(), inputs->end(),
                               [&](const tensor_spec& in) { return in.name == t.name; });
  const bool inplace = j.contains("inplace") || ref_by_name;
  if (inplace && is_input) return r.error("inplace", "only outputs update an input in place");
  std::string dtype_text;
  const bool dtype_given = j.contains("dtype");
  AOPT_RETURN_IF_ERROR(read_string(j, r, "dtype", !inplace && !lw.allowed, dtype_text));
  if (!dtype_text.empty() && !parse_dtype(dtype_text, t.type)) {
    return r.error("dtype", "unknown dtype '" + dtype_text + "'");
  }
  auto shape = j.find("shape");
  if (t.absent && shape != j.end()) {
    return r.error("shape", "an absent input has no shape (it is left out of the call)");
  }
  const bool shape_left_out = shape == j.end() && !t.absent && !inplace;
  if (shape_left_out && !lw.allowed) return r.error("shape", "missing");
  if (shape_left_out || (!dtype_given && !inplace)) lw.unsettled.insert(t.name);
  if (shape != j.end()) AOPT_RETURN_IF_ERROR(parse_shape(*shape, r, t.shape));
  bool unsigned_type = t.type == dtype::uint8 || t.type == dtype::boolean;
  t.range_lo = unsigned_type ? 0 : -1;
  t.range_hi = 1;
  auto range = j.find("range");
  if (range != j.end()) {
    if (!is_input) return r.error("range", "only inputs have a value range");
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
        !(*range)[1].is_number()) {
      return r.error("range", "expected [lo, hi], got " + range->dump());
    }
    t.range_lo = (*range)[0].get<double>();
    t.range_hi = (*range)[1].get<double>();
    if (t.range_lo > t.range_hi) return r.error("range", "lo is greater than hi: " + range->dump());
  }
  if (auto draw = j.find("distribution"); draw != j.end()) {
    if (!is_input) return r.error("distribution", "only inputs are drawn");
    static const std::pair<const char*, tensor_spec::distribution> names[] = {
        {"uniform", tensor_spec::distribution::uniform},
        {"normal", tensor_spec::distribution::normal},
        {"sorted", tensor_spec::distribution::sorted},
        {"permutation", tensor_spec::distribution::permutation},
        {"mask", tensor_spec::distribution::mask},
        {"offsets", tensor_spec::distribution::offsets}};
    bool known = false;
    for (const auto& [name, value] : names) {
      if (draw->is_string() && draw->get<std::string>() == name) {
        t.draw = value;
        known = true;
      }
    }
    if (!known) {
      return r.error("distribution",
                     "expected \"uniform\", \"normal\", \"sorted\", \"offsets\", "
                     "\"permutation\" or \"mask\", got " +
                         draw->dump());
    }
    const bool floating =
        t.type == dtype::float32 || t.type == dtype::float16 || t.type == dtype::bfloat16;
    if (t.draw == tensor_spec::distribution::permutation && floating && dtype_given) {
      return r.error("distribution", "a permutation is of integers, not " + dtype_text);
    }
  }
  if (inplace) return parse_inplace(j, r, *inputs, t, lw, ref_by_name);
  if (auto init = j.find("init"); init != j.end()) {
    if (is_input) return r.error("init", "only outputs have initial contents");
    if (init->is_string() && init->get<std::string>() == "zeros") {
      t.init = tensor_spec::initial::value;
      t.init_value = 0;
    } else if (init->is_string() && init->get<std::string>() == "none") {
      t.init = tensor_spec::initial::poison;
    } else if (init->is_string() &&
               (init->get<std::string>() == "inf" || init->get<std::string>() == "-inf")) {
      // A running maximum starts at -inf (JSON has no literal for it).
      t.init = tensor_spec::initial::value;
      t.init_value = init->get<std::string>() == "inf" ? HUGE_VAL : -HUGE_VAL;
    } else if (init->is_number()) {
      t.init = tensor_spec::initial::value;
      t.init_value = init->get<double>();
    } else if (init->is_object() && init->size() == 1 && init->contains("copy") &&
               (*init)["copy"].is_string()) {
      t.init = tensor_spec::initial::copy;
      t.init_source = (*init)["copy"].get<std::string>();
    } else {
      return r.error("init",
                     "expected \"zeros\", \"none\", \"inf\", \"-inf\", a number or {\"copy\": "
                     "\"<input>\"}, got " +
                         init->dump());
    }
  }
  return {};
}

// An output initialised as a copy names an input of its dtype and size.
status check_initial_copies(const op_spec& s, const reader& r, const leeway& lw) {
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    const tensor_spec& out = s.outputs[i];
    if (out.init != tensor_spec::initial::copy) continue;
    const auto source = std::find_if(s.inputs.begin(), s.inputs.end(), [&](const tensor_spec& in) {
      return in.name == out.init_source;
    });
    const reader at(r.child("outputs", i));
    if (source == s.inputs.end() && lw.lists_left_out) continue;
    if (source == s.inputs.end())
      return at.error("init", "no input named '" + out.init_source + "'");
    if (lw.unsettled_tensor(out.name) || lw.unsettled_tensor(source->name)) continue;
    if (source->type != out.type || source->bytes() != out.bytes()) {
      return at.error("init", "input '" + out.init_source + "' differs in dtype or size");
    }
  }
  return {};
}

// An infinite initial value is a floating-point output's (an integer has no infinity).
status check_initial_values(const op_spec& s, const reader& r, const leeway& lw) {
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    const tensor_spec& out = s.outputs[i];
    if (out.init != tensor_spec::initial::value || std::isfinite(out.init_value)) continue;
    if (lw.unsettled_tensor(out.name)) continue;
    if (out.type != dtype::float32 && out.type != dtype::float16 && out.type != dtype::bfloat16) {
      return reader(r.child("outputs", i))
          .error("init", std::string("an output of dtype ") + to_string(out.type) +
                             " cannot start at infinity; give a number");
    }
  }
  return {};
}

// Two outputs updating one input in place would share one argument.
status check_inplace_once(const op_spec& s, const reader& r) {
  std::set<std::string> updated;
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    const std::string& source = s.outputs[i].inplace_of;
    if (!source.empty() && !updated.insert(source).second) {
      return reader(r.child("outputs", i))
          .error("inplace", "input '" + source + "' is already updated by another output");
    }
  }
  return {};
}

// `inputs`: as parse_tensor's.
status parse_tensors(const json& j, const reader& r, const char* key,
                     const std::vector<tensor_spec>* inputs, std::vector<tensor_spec>& out,
                     leeway& lw) {
  const bool is_input = inputs == nullptr;
  auto it = j.find(key);
  if (it == j.end()) {
    lw.lists_left_out = lw.lists_left_out || lw.allowed;
    if (is_input || lw.allowed) return {};
    return r.error(key, "missing");
  }
  if (!it->is_array()) return r.error(key, "expected an array, got " + type_name(*it));
  out.clear();
  for (size_t i = 0; i < it->size(); ++i) {
    tensor_spec t;
    AOPT_RETURN_IF_ERROR(parse_tensor((*it)[i], reader(r.child(key, i)), inputs, t, lw));
    out.push_back(std::move(t));
  }
  if (!is_input && out.empty()) return r.error(key, "an operator needs at least one output");
  return {};
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

status parse_attrs(const json& j, const reader& r, std::vector<attr_spec>& out) {
  auto it = j.find("attrs");
  if (it == j.end()) return {};
  if (!it->is_array()) return r.error("attrs", "expected an array, got " + type_name(*it));
  for (size_t i = 0; i < it->size(); ++i) {
    reader ar(r.child("attrs", i));
    const json& a = (*it)[i];
    if (!a.is_object()) return ar.error("expected an object, got " + type_name(a));
    AOPT_RETURN_IF_ERROR(check_keys(a, ar, {"name", "type", "value", "description"}));
    attr_spec attr;
    AOPT_RETURN_IF_ERROR(read_string(a, ar, "name", true, attr.name));
    AOPT_RETURN_IF_ERROR(read_string(a, ar, "type", true, attr.type));
    bool known = false;
    for (const char* t : attr_types) known = known || attr.type == t;
    if (!known) return ar.error("type", "unknown attribute type '" + attr.type + "'");
    auto v = a.find("value");
    if (v == a.end()) return ar.error("value", "missing");
    if (!value_matches(attr.type, *v)) {
      return ar.error("value", v->dump() + " is not a " + attr.type);
    }
    attr.value = *v;
    out.push_back(std::move(attr));
  }
  return {};
}

// Tensors are the kernel's parameters and attributes are read by name: a name used twice would
// make one shadow the other.
status check_unique_names(const op_spec& s, const reader& r) {
  std::set<std::string> tensors;
  for (const auto& [key, list] :
       {std::pair{"inputs", &s.inputs}, std::pair{"outputs", &s.outputs}}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const tensor_spec& t = (*list)[i];
      // A ref output carries its input's name (check_inplace_once: once).
      if (!t.inplace_of.empty() && t.inplace_of == t.name) continue;
      if (!tensors.insert(t.name).second) {
        return reader(r.child(key, i))
            .error("name", "tensor name '" + (*list)[i].name + "' is used twice");
      }
    }
  }
  std::set<std::string> attrs;
  for (size_t i = 0; i < s.attrs.size(); ++i) {
    if (!attrs.insert(s.attrs[i].name).second) {
      return reader(r.child("attrs", i))
          .error("name", "attribute name '" + s.attrs[i].name + "' is used twice");
    }
  }
  return {};
}

status parse_tolerance(const json& j, const reader& r, op_spec& s) {
  auto it = j.find("tolerance");
  if (it == j.end()) return {};
  reader tr(r.child("tolerance"));
  if (!it->is_object()) return tr.error("expected an object, got " + type_name(*it));
  AOPT_RETURN_IF_ERROR(check_keys(*it, tr, {"rtol", "atol", "max_error_ratio"}));
  s.has_tolerance = true;
  s.tol = tolerance{};
  AOPT_RETURN_IF_ERROR(read_number(*it, tr, "rtol", s.tol.rtol));
  AOPT_RETURN_IF_ERROR(read_number(*it, tr, "atol", s.tol.atol));
  AOPT_RETURN_IF_ERROR(read_number(*it, tr, "max_error_ratio", s.tol.max_error_ratio));
  if (s.tol.rtol < 0 || s.tol.atol < 0 || s.tol.max_error_ratio < 0 || s.tol.max_error_ratio > 1) {
    return tr.error("values must be >= 0 and max_error_ratio <= 1");
  }
  return {};
}

status parse_files(const json& j, const reader& r, op_spec& s) {
  s.files.tiling_header = "op_host/" + s.name + "_tiling.h";
  s.files.host = "op_host/" + s.name + ".cpp";
  s.files.kernel = "op_kernel/" + s.name + ".cpp";
  s.files.reference = "reference.cpp";
  auto it = j.find("files");
  if (it == j.end()) return {};
  reader fr(r.child("files"));
  if (!it->is_object()) return fr.error("expected an object, got " + type_name(*it));
  AOPT_RETURN_IF_ERROR(check_keys(*it, fr, {"tiling_header", "host", "kernel", "reference"}));
  std::pair<const char*, std::string*> fields[] = {{"tiling_header", &s.files.tiling_header},
                                                   {"host", &s.files.host},
                                                   {"kernel", &s.files.kernel},
                                                   {"reference", &s.files.reference}};
  for (auto& [key, target] : fields) {
    AOPT_RETURN_IF_ERROR(read_string(*it, fr, key, false, *target));
    if (!is_package_path(*target)) {
      return fr.error(key, "'" + *target + "' is not a relative path inside the package");
    }
  }
  return {};
}

const tensor_spec* find_tensor(const op_spec& s, const std::string& name) {
  for (const auto* list : {&s.inputs, &s.outputs}) {
    for (const auto& t : *list) {
      if (t.name == name) return &t;
    }
  }
  return nullptr;
}

status parse_validation_shapes(const json& j, const reader& r, op_spec& s, const leeway& lw) {
  auto it = j.find("validation_shapes");
  if (it == j.end()) return {};
  if (!it->is_array()) return r.error("validation_shapes", "expected an array, got " + it->dump());
  for (size_t i = 0; i < it->size(); ++i) {
    const json& entry = (*it)[i];
    const reader er(r.child("validation_shapes", i));
    if (!entry.is_object() || entry.empty()) {
      return er.error("expected an object of tensor name -> shape, got " + entry.dump());
    }
    shape_set shapes;
    for (auto t = entry.begin(); t != entry.end(); ++t) {
      const tensor_spec* tensor = find_tensor(s, t.key());
      if (tensor == nullptr && !lw.lists_left_out) {
        return er.error(t.key(), "no input or output of that name");
      }
      // A tensor to come from the OpDef, or whose shape is to come from a test case: its rank
      // is checked once it did.
      if (tensor == nullptr || lw.unsettled_tensor(tensor->name)) {
        if (!t->is_array()) return er.error(t.key(), "expected a shape, got " + t->dump());
      } else if (!t->is_array() || t->size() != tensor->shape.size()) {
        return er.error(t.key(), "expected a shape of rank " +
                                     std::to_string(tensor->shape.size()) + ", got " + t->dump());
      }
      std::vector<int64_t> shape;
      for (const json& d : *t) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1) {
          return er.error(t.key(), "expected positive dimensions, got " + t->dump());
        }
        shape.push_back(d.get<int64_t>());
      }
      shapes[t.key()] = std::move(shape);
    }
    s.validation_shapes.push_back(std::move(shapes));
  }
  return {};
}

status parse_include_dirs(const json& j, const reader& r, op_spec& s) {
  auto it = j.find("include_dirs");
  if (it == j.end()) return {};
  if (!it->is_array()) {
    return r.error("include_dirs", "expected an array of folder paths, got " + it->dump());
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& entry = (*it)[i];
    if (!entry.is_string() || entry.get_ref<const std::string&>().empty()) {
      return reader(r.child("include_dirs", i))
          .error("expected a folder path, got " + entry.dump());
    }
    s.include_dirs.push_back(entry.get<std::string>());
  }
  return {};
}

const tensor_spec* find_tensor(const std::vector<tensor_spec>& tensors, const std::string& name) {
  for (const auto& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// {"input" or "output": name, "axis": i}: an axis of a tensor the spec declares (`outputs`
// null: inputs only).
status parse_tensor_axis(const json& j, const reader& r, const op_spec& s, bool outputs,
                         tensor_axis& out) {
  if (!j.is_object()) return r.error("expected an object, got " + j.dump());
  AOPT_RETURN_IF_ERROR(outputs ? check_keys(j, r, {"input", "output", "axis"})
                               : check_keys(j, r, {"input", "axis"}));
  const tensor_spec* t = nullptr;
  if (j.contains("output") && outputs) {
    AOPT_RETURN_IF_ERROR(read_string(j, r, "output", true, out.tensor));
    t = find_tensor(s.outputs, out.tensor);
    if (t == nullptr) return r.error("output", "no output named '" + out.tensor + "'");
  } else {
    AOPT_RETURN_IF_ERROR(read_string(j, r, "input", true, out.tensor));
    t = find_tensor(s.inputs, out.tensor);
    if (t == nullptr) return r.error("input", "no input named '" + out.tensor + "'");
  }
  auto axis = j.find("axis");
  const auto rank = static_cast<int64_t>(t->shape.size());
  if (axis == j.end() || !axis->is_number_integer() || axis->get<int64_t>() >= rank ||
      axis->get<int64_t>() < -rank) {
    return r.error("axis", "expected an axis of " + out.tensor + " (rank " + std::to_string(rank) +
                               "), got " +
                               (axis == j.end() ? std::string("nothing") : axis->dump()));
  }
  out.axis = axis->get<int>();
  return {};
}

// One product of "cube_macs" (op_spec.hpp): its result (an output, or extents) and its K.
status parse_cube_product(const json& j, const reader& r, const op_spec& s, cube_product& p) {
  if (!j.is_object()) return r.error("expected an object, got " + j.dump());
  AOPT_RETURN_IF_ERROR(check_keys(j, r, {"output", "result", "reduce"}));
  if (j.contains("output") == j.contains("result")) {
    return r.error(
        "expected either \"output\" (the product's result is an output) or \"result\" "
        "(its extents), not " +
        std::string(j.contains("output") ? "both" : "neither"));
  }
  if (j.contains("output")) {
    AOPT_RETURN_IF_ERROR(read_string(j, r, "output", true, p.output));
    if (find_tensor(s.outputs, p.output) == nullptr) {
      return r.error("output", "no output named '" + p.output + "'");
    }
  } else {
    const json& extents = j.at("result");
    if (!extents.is_array() || extents.empty()) {
      return r.error("result", "expected a non-empty array of tensor axes, got " + extents.dump());
    }
    for (size_t i = 0; i < extents.size(); ++i) {
      tensor_axis a;
      AOPT_RETURN_IF_ERROR(parse_tensor_axis(extents[i], reader(r.child("result", i)), s, true, a));
      p.result.push_back(std::move(a));
    }
  }
  auto red = j.find("reduce");
  if (red == j.end()) return r.error("reduce", "missing");
  return parse_tensor_axis(*red, reader(r.child("reduce")), s, false, p.reduce);
}

// op.json's "least_work" (op_spec.hpp), after the tensors it names.
status parse_least_work(const json& j, const reader& r, op_spec& s) {
  auto it = j.find("least_work");
  if (it == j.end()) return {};
  const reader lr(r.child("least_work"));
  if (!it->is_object()) return r.error("least_work", "expected an object, got " + it->dump());
  AOPT_RETURN_IF_ERROR(check_keys(*it, lr, {"vector_passes", "cube_macs"}));
  least_work_spec& w = s.least_work;
  if (auto v = it->find("vector_passes"); v != it->end()) {
    // A bound far above any operator's needs would make honest kernels "suspicious".
    if (!v->is_number() || v->get<double>() < 0 || v->get<double>() > 1000) {
      return lr.error("vector_passes", "expected a number in [0, 1000], got " + v->dump());
    }
    w.vector_passes = v->get<double>();
  }
  if (auto c = it->find("cube_macs"); c != it->end()) {
    if (c->is_array()) {
      if (c->empty()) return lr.error("cube_macs", "expected at least one product");
      for (size_t i = 0; i < c->size(); ++i) {
        cube_product p;
        AOPT_RETURN_IF_ERROR(parse_cube_product((*c)[i], reader(lr.child("cube_macs", i)), s, p));
        w.cube_products.push_back(std::move(p));
      }
    } else {
      cube_product p;
      AOPT_RETURN_IF_ERROR(parse_cube_product(*c, reader(lr.child("cube_macs")), s, p));
      w.cube_products.push_back(std::move(p));
    }
  }
  return {};
}

status parse_spec(const json& j, const reader& r, op_spec& s, leeway& lw) {
  if (!j.is_object()) return r.error("expected an object, got " + type_name(j));
  AOPT_RETURN_IF_ERROR(
      check_keys(j, r,
                 {"name", "level", "category", "kind", "kernel_entry", "tiling_func", "inputs",
                  "outputs", "attrs", "tolerance", "seed", "files", "description",
                  "validation_shapes", "include_dirs", "least_work"}));
  AOPT_RETURN_IF_ERROR(read_string(j, r, "name", true, s.name));
  if (!is_identifier(s.name)) return r.error("name", "'" + s.name + "' is not an identifier");
  if (auto it = j.find("level"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int>() < 1 || it->get<int>() > 3) {
      return r.error("level", "expected 1, 2 or 3, got " + it->dump());
    }
    s.level = it->get<int>();
  }
  AOPT_RETURN_IF_ERROR(read_string(j, r, "category", false, s.category));
  AOPT_RETURN_IF_ERROR(read_string(j, r, "kind", false, s.kind));
  if (s.kind != "baseline" && s.kind != "expert") {
    return r.error("kind", "expected 'baseline' or 'expert', got '" + s.kind + "'");
  }
  s.kernel_entry = s.name;
  AOPT_RETURN_IF_ERROR(read_string(j, r, "kernel_entry", false, s.kernel_entry));
  if (!is_identifier(s.kernel_entry)) {
    return r.error("kernel_entry", "'" + s.kernel_entry + "' is not an identifier");
  }
  AOPT_RETURN_IF_ERROR(read_string(j, r, "tiling_func", false, s.tiling_func));
  if (!is_identifier(s.tiling_func)) {
    return r.error("tiling_func", "'" + s.tiling_func + "' is not an identifier");
  }
  AOPT_RETURN_IF_ERROR(parse_tensors(j, r, "inputs", nullptr, s.inputs, lw));
  AOPT_RETURN_IF_ERROR(parse_tensors(j, r, "outputs", &s.inputs, s.outputs, lw));
  AOPT_RETURN_IF_ERROR(check_initial_copies(s, r, lw));
  AOPT_RETURN_IF_ERROR(check_initial_values(s, r, lw));
  AOPT_RETURN_IF_ERROR(check_inplace_once(s, r));
  AOPT_RETURN_IF_ERROR(parse_attrs(j, r, s.attrs));
  AOPT_RETURN_IF_ERROR(check_unique_names(s, r));
  AOPT_RETURN_IF_ERROR(parse_tolerance(j, r, s));
  if (auto it = j.find("seed"); it != j.end()) {
    // JSON built in C++ (tests, the driver's spec) stores a literal 7 as a signed integer.
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0)) {
      return r.error("seed", "expected a non-negative integer, got " + it->dump());
    }
    s.seed = it->get<uint64_t>();
  }
  AOPT_RETURN_IF_ERROR(parse_files(j, r, s));
  AOPT_RETURN_IF_ERROR(parse_include_dirs(j, r, s));
  AOPT_RETURN_IF_ERROR(parse_least_work(j, r, s));
  return parse_validation_shapes(j, r, s, lw);
}

json tensor_json(const tensor_spec& t, bool with_range) {
  json j = {{"name", t.name}, {"dtype", to_string(t.type)}, {"shape", t.shape}};
  if (with_range) j["range"] = {t.range_lo, t.range_hi};
  // Only when not the default: the spec of an existing operator reads (and hashes) as before.
  static const char* const draw_names[] = {"uniform",     "normal", "sorted",
                                           "permutation", "mask",   "offsets"};
  if (t.draw != tensor_spec::distribution::uniform) {
    j["distribution"] = draw_names[static_cast<int>(t.draw)];
  }
  // Only when set: the spec of a tensor without them reads (and hashes) as before.
  if (t.absent) {
    j.erase("shape");
    j["absent"] = true;
  }
  if (t.scratch) j["scratch"] = true;
  if (t.value_depend) j["value_depend"] = true;
  if (!t.inplace_of.empty()) {
    j["inplace"] = t.inplace_of;
    return j;
  }
  if (t.init == tensor_spec::initial::poison) j["init"] = "none";
  if (t.init == tensor_spec::initial::value) {
    if (std::isfinite(t.init_value))
      j["init"] = t.init_value;
    else
      j["init"] = t.init_value > 0 ? "inf" : "-inf";
  }
  if (t.init == tensor_spec::initial::copy) j["init"] = {{"copy", t.init_source}};
  return j;
}

}  // namespace

int64_t tensor_spec::numel() const {
  if (absent) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

uint64_t tensor_spec::bytes() const {
  return static_cast<uint64_t>(numel()) * dtype_size(type);
}

uint64_t op_spec::io_bytes() const {
  uint64_t total = 0;
  for (const auto& t : inputs) total += t.bytes();
  for (const auto& t : outputs) total += t.bytes();
  return total;
}

double op_spec::least_vector_passes() const {
  if (least_work.vector_passes >= 0) return least_work.vector_passes;
  return category == "data_movement" || !least_work.cube_products.empty() ? 0.0 : 1.0;
}

namespace {

// The length of a tensor's axis on the current shapes; 0 when it names nothing.
uint64_t extent(const op_spec& op, const tensor_axis& a) {
  const tensor_spec* t = find_tensor(op.inputs, a.tensor);
  if (t == nullptr) t = find_tensor(op.outputs, a.tensor);
  if (t == nullptr || t->shape.empty()) return 0;
  const auto rank = static_cast<int64_t>(t->shape.size());
  const int64_t axis = a.axis < 0 ? rank + a.axis : a.axis;
  if (axis < 0 || axis >= rank) return 0;
  return static_cast<uint64_t>(t->shape[axis]);
}

}  // namespace

std::vector<cube_work> op_spec::least_cube_work() const {
  std::vector<cube_work> out;
  for (const cube_product& p : least_work.cube_products) {
    uint64_t result_elements = 1;
    if (!p.output.empty()) {
      const tensor_spec* t = find_tensor(outputs, p.output);
      result_elements = t == nullptr ? 0 : static_cast<uint64_t>(t->numel());
    }
    for (const tensor_axis& a : p.result) result_elements *= extent(*this, a);
    const tensor_spec* k_source = find_tensor(inputs, p.reduce.tensor);
    // Without the input, the fastest rate: a bound never above the truth.
    out.push_back({result_elements * extent(*this, p.reduce),
                   k_source == nullptr ? dtype::int8 : k_source->type});
  }
  return out;
}

uint64_t op_spec::least_cube_macs() const {
  uint64_t total = 0;
  for (const cube_work& w : least_cube_work()) total += w.macs;
  return total;
}

tolerance op_spec::tolerance_for(const tensor_spec& output) const {
  return has_tolerance ? tol : default_tolerance(output.type);
}

result<op_spec> parse_op_spec(const nlohmann::json& j, const std::string& file) {
  op_spec s;
  leeway strict;
  // status::with_context would link base: the candidate process links this file without it.
  if (status st = parse_spec(j, reader(), s, strict); !st.ok()) {
    return status(st.code(), file + ": " + st.message());
  }
  return s;
}

status check_incomplete_op_spec(const nlohmann::json& j, const std::string& file) {
  op_spec s;
  leeway lw;
  lw.allowed = true;
  if (status st = parse_spec(j, reader(), s, lw); !st.ok()) {
    return status(st.code(), file + ": " + st.message());
  }
  return {};
}

result<op_spec> parse_nested_op_spec(const nlohmann::json& j, const std::string& key) {
  op_spec s;
  leeway strict;
  AOPT_RETURN_IF_ERROR(parse_spec(j, reader(key), s, strict));
  return s;
}

namespace {

json tensor_axis_json(const tensor_axis& a, const op_spec& s) {
  const char* role = find_tensor(s.inputs, a.tensor) != nullptr ? "input" : "output";
  return {{role, a.tensor}, {"axis", a.axis}};
}

json cube_product_json(const cube_product& p, const op_spec& s) {
  json j = json::object();
  if (!p.output.empty()) {
    j["output"] = p.output;
  } else {
    j["result"] = json::array();
    for (const tensor_axis& a : p.result) j["result"].push_back(tensor_axis_json(a, s));
  }
  j["reduce"] = tensor_axis_json(p.reduce, s);
  return j;
}

}  // namespace

void to_json(nlohmann::json& j, const op_spec& s) {
  j = json::object();
  j["name"] = s.name;
  j["level"] = s.level;
  j["category"] = s.category;
  j["kind"] = s.kind;
  j["kernel_entry"] = s.kernel_entry;
  j["tiling_func"] = s.tiling_func;
  j["inputs"] = json::array();
  for (const auto& t : s.inputs) j["inputs"].push_back(tensor_json(t, true));
  j["outputs"] = json::array();
  for (const auto& t : s.outputs) j["outputs"].push_back(tensor_json(t, false));
  j["attrs"] = json::array();
  for (const auto& a : s.attrs) {
    j["attrs"].push_back({{"name", a.name}, {"type", a.type}, {"value", a.value}});
  }
  if (s.has_tolerance) {
    j["tolerance"] = {
        {"rtol", s.tol.rtol}, {"atol", s.tol.atol}, {"max_error_ratio", s.tol.max_error_ratio}};
  }
  j["seed"] = s.seed;
  // Only when declared: the spec of an operator without it reads (and hashes) as before.
  const least_work_spec& w = s.least_work;
  if (w.vector_passes >= 0) j["least_work"]["vector_passes"] = w.vector_passes;
  // One product reads (and hashes) as the single object it was before arrays were accepted.
  if (!w.cube_products.empty()) {
    json products = json::array();
    for (const cube_product& p : w.cube_products) products.push_back(cube_product_json(p, s));
    j["least_work"]["cube_macs"] = products.size() == 1 ? products[0] : products;
  }
  j["files"] = {{"tiling_header", s.files.tiling_header},
                {"host", s.files.host},
                {"kernel", s.files.kernel},
                {"reference", s.files.reference}};
}

}  // namespace aopt::npu
