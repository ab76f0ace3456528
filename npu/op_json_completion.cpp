#include "npu/op_json_completion.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "npu/optest_case.hpp"
#include "npu/sim/device/opdef_reader.hpp"

namespace aopt::npu {

namespace {

using json = nlohmann::json;

const char* const tensor_lists[] = {"inputs", "outputs"};

bool is_inplace(const json& t) {
  return t.contains("inplace");
}
bool is_absent(const json& t) {
  return t.value("absent", false) == true;
}
bool lacks_dtype(const json& t) {
  return !t.contains("dtype") && !is_inplace(t);
}
bool lacks_shape(const json& t) {
  return !t.contains("shape") && !is_inplace(t) && !is_absent(t);
}

// The attribute types op.json can hold (npu/protocol/op_spec.hpp).
bool op_json_attr_type(const std::string& type) {
  for (const char* t : {"float", "int", "bool", "list_int", "list_float", "string"}) {
    if (type == t) return true;
  }
  return false;
}

// "inputs[1] ('y')": how errors name a tensor.
std::string tensor_field(const char* list, size_t index, const json& t) {
  return fmt::format("{}[{}] ('{}')", list, index, t.value("name", ""));
}

// The OpDef, read once when first needed.
class op_def_source {
 public:
  op_def_source(const op_defs_reader& read, const json& op_json,
                const std::filesystem::path& package_dir)
      : read_(read), op_json_(op_json), package_dir_(package_dir) {}

  // The operator's OpDef, or why there is none ("the host registers no OpDef", a compile error).
  result<const json*> get() {
    if (!read_once_) {
      read_once_ = true;
      if (!read_) {
        why_ = "the OpDef is not read for this package (an uploaded op.json must say it)";
      } else if (auto defs = read_(); !defs.ok()) {
        why_ = "the OpDef could not be read: " + defs.error().message();
      } else {
        defs_ = std::move(defs).value();
        std::vector<std::string> names;
        for (const char* key : {"name", "kernel_entry"}) {
          if (op_json_.contains(key) && op_json_[key].is_string())
            names.push_back(op_json_[key].get<std::string>());
        }
        names.push_back(
            std::filesystem::absolute(package_dir_).lexically_normal().filename().string());
        def_ = find_op_def(defs_, names);
        if (def_ == nullptr) {
          why_ = defs_.empty() ? "the host sources register no OpDef"
                               : "the host registers " + op_defs_listed(defs_);
        }
      }
    }
    if (def_ == nullptr) return invalid_argument(why_);
    return def_;
  }

 private:
  const op_defs_reader& read_;
  const json& op_json_;
  std::filesystem::path package_dir_;
  bool read_once_ = false;
  json defs_;
  const json* def_ = nullptr;
  std::string why_;
};

// The OpDef's parameter named `name` in its list `list`, and its position; null when none.
const json* op_def_param(const json& def, const char* list, const std::string& name,
                         size_t* position) {
  // Into `def` itself (value() would return a copy the pointer outlives).
  const auto params = def.find(list);
  if (params == def.end() || !params->is_array()) return nullptr;
  for (size_t i = 0; i < params->size(); ++i) {
    const json& p = (*params)[i];
    if (p.is_object() && p.value("name", "") == name) {
      if (position != nullptr) *position = i;
      return &p;
    }
  }
  return nullptr;
}

// The tensor lists op.json leaves out, from the OpDef in its order.
status fill_tensor_lists(json& spec, const json& def) {
  for (const char* list : tensor_lists) {
    if (spec.contains(list)) continue;
    json tensors = json::array();
    const json& params = def.value(list, json::array());
    for (size_t i = 0; i < params.size(); ++i) {
      const json& p = params[i];
      if (p.value("param_type", "") == "dynamic") {
        return invalid_argument(fmt::format(
            "{}: missing, and the OpDef's {}[{}] '{}' is a dynamic (list) parameter: list its "
            "tensors in op.json",
            list, list, i, p.value("name", "")));
      }
      tensors.push_back({{"name", p.value("name", "")}});
    }
    spec[list] = std::move(tensors);
  }
  return {};
}

// Shapes, dtypes and value ranges op.json leaves out, from the first test case: a description
// is matched by its "name", else by the tensor's position in the OpDef (`def` may be null: then
// by the tensor's position in op.json).
void fill_from_test_case(json& spec, const optest_case& test_case, const json* def) {
  for (const char* list : tensor_lists) {
    const bool inputs = std::string(list) == "inputs";
    const json descs = test_case.data.value(inputs ? "input_desc" : "output_desc", json());
    if (!descs.is_array()) continue;
    json& tensors = spec[list];
    for (size_t i = 0; i < tensors.size(); ++i) {
      json& t = tensors[i];
      if (!t.is_object() || is_inplace(t) || is_absent(t)) continue;
      const std::string name = t.value("name", "");
      const json* desc = nullptr;
      for (const json& d : descs) {
        if (d.is_object() && d.value("name", "") == name && !name.empty()) desc = &d;
      }
      size_t position = i;
      if (desc == nullptr && (def == nullptr || op_def_param(*def, list, name, &position))) {
        if (position < descs.size()) desc = &descs[position];
      }
      if (desc == nullptr) continue;
      if (lacks_shape(t)) {
        if (json shape = optest_shape(*desc); !shape.is_null()) t["shape"] = shape;
      }
      if (lacks_dtype(t)) {
        if (std::string dtype = optest_dtype(*desc); !dtype.empty()) t["dtype"] = dtype;
      }
      if (inputs && !t.contains("range") && t.value("distribution", "") != "permutation" &&
          t.value("distribution", "") != "mask") {
        if (json range = optest_range(*desc); !range.is_null()) t["range"] = range;
      }
    }
  }
}

// One column of the OpDef's parallel DataType lists: tensor name -> dtype ("" for one op.json
// cannot hold).
using dtype_column = std::map<std::string, std::string>;

// The OpDef's dtype combinations; an error when its lists are not parallel (lengths other than
// 1 and the longest).
result<std::vector<dtype_column>> dtype_columns(const json& def) {
  size_t width = 0;
  for (const char* list : tensor_lists) {
    for (const json& p : def.value(list, json::array())) {
      width = std::max(width, p.value("dtypes", json::array()).size());
    }
  }
  std::vector<dtype_column> columns(width);
  for (const char* list : tensor_lists) {
    for (const json& p : def.value(list, json::array())) {
      const json dtypes = p.value("dtypes", json::array());
      if (dtypes.empty()) continue;  // says nothing
      if (dtypes.size() != 1 && dtypes.size() != width) {
        return invalid_argument(fmt::format(
            "the OpDef's DataType lists are not parallel ('{}' lists {} dtypes, another {})",
            p.value("name", ""), dtypes.size(), width));
      }
      for (size_t k = 0; k < width; ++k) {
        const json& d = dtypes[dtypes.size() == 1 ? 0 : k];
        columns[k][p.value("name", "")] = d.is_string() ? d.get<std::string>() : "";
      }
    }
  }
  return columns;
}

std::string describe_columns(const std::vector<dtype_column>& columns) {
  std::string out;
  for (const auto& column : columns) {
    std::string combination;
    for (const auto& [name, dtype] : column) {
      combination += fmt::format("{}{} {}", combination.empty() ? "" : ", ", name,
                                 dtype.empty() ? "(a dtype op.json cannot hold)" : dtype);
    }
    out += (out.empty() ? "" : "; ") + ("(" + combination + ")");
  }
  return out;
}

// The dtypes op.json leaves out, from the OpDef's combinations that agree with the known ones.
status fill_dtypes(json& spec, op_def_source& source) {
  bool any = false;
  for (const char* list : tensor_lists) {
    for (const json& t : spec[list]) any = any || (t.is_object() && lacks_dtype(t));
  }
  if (!any) return {};
  auto def = source.get();
  dtype_column known;
  for (const char* list : tensor_lists) {
    for (const json& t : spec[list]) {
      if (t.is_object() && t.contains("dtype") && t["dtype"].is_string())
        known[t.value("name", "")] = t["dtype"].get<std::string>();
    }
  }
  std::vector<dtype_column> agreeing;
  std::string columns_text;
  if (def.ok()) {
    auto columns = dtype_columns(**def);
    if (!columns.ok()) def = columns.error();
    if (columns.ok()) {
      columns_text = describe_columns(*columns);
      for (const dtype_column& column : *columns) {
        const bool agrees = std::all_of(known.begin(), known.end(), [&](const auto& k) {
          const auto it = column.find(k.first);
          return it == column.end() || it->second == k.second;
        });
        if (agrees) agreeing.push_back(column);
      }
    }
  }
  std::string known_text;
  for (const auto& [name, dtype] : known) {
    known_text += fmt::format("{}{} {}", known_text.empty() ? "" : ", ", name, dtype);
  }
  for (const char* list : tensor_lists) {
    json& tensors = spec[list];
    for (size_t i = 0; i < tensors.size(); ++i) {
      json& t = tensors[i];
      if (!t.is_object() || !lacks_dtype(t)) continue;
      const std::string field = tensor_field(list, i, t) + ".dtype";
      if (!def.ok()) {
        return invalid_argument(fmt::format("{}: missing, and {}", field, def.error().message()));
      }
      const std::string name = t.value("name", "");
      if (op_def_param(**def, list, name, nullptr) == nullptr) {
        return invalid_argument(fmt::format("{}: missing, and the OpDef of {} declares no {} '{}'",
                                            field, (*def)->value("op_type", ""),
                                            std::string(list) == "inputs" ? "input" : "output",
                                            name));
      }
      std::set<std::string> choices;
      for (const dtype_column& column : agreeing) {
        if (auto it = column.find(name); it != column.end()) choices.insert(it->second);
      }
      if (is_absent(t) && (choices.size() != 1 || choices.begin()->empty())) {
        // An absent input carries no data: any dtype the OpDef allows for it will do.
        t["dtype"] = choices.empty() || choices.begin()->empty() ? "float32" : *choices.begin();
        continue;
      }
      if (choices.empty()) {
        return invalid_argument(fmt::format(
            "{}: missing, and no dtype combination of the OpDef of {} agrees with the dtypes "
            "op.json gives ({}): the OpDef declares {}",
            field, (*def)->value("op_type", ""), known_text.empty() ? "none" : known_text,
            columns_text.empty() ? "no dtypes" : columns_text));
      }
      if (choices.size() > 1) {
        std::string listed;
        for (const std::string& c : choices) listed += (listed.empty() ? "" : " or ") + c;
        return invalid_argument(fmt::format(
            "{}: missing, and the OpDef of {} allows {} for it{}: say which in op.json", field,
            (*def)->value("op_type", ""), listed,
            known_text.empty() ? "" : " with the dtypes op.json gives (" + known_text + ")"));
      }
      if (choices.begin()->empty()) {
        return invalid_argument(
            fmt::format("{}: missing, and the OpDef of {} declares a dtype op.json cannot hold",
                        field, (*def)->value("op_type", "")));
      }
      t["dtype"] = *choices.begin();
    }
  }
  return {};
}

// Shapes still missing: an optional input of the OpDef is absent, anything else an error.
status settle_shapes(json& spec, op_def_source& source, bool has_test_case,
                     std::vector<std::string>& assumptions) {
  for (const char* list : tensor_lists) {
    json& tensors = spec[list];
    for (size_t i = 0; i < tensors.size(); ++i) {
      json& t = tensors[i];
      if (!t.is_object() || !lacks_shape(t)) continue;
      auto def = source.get();
      const json* param =
          def.ok() ? op_def_param(**def, list, t.value("name", ""), nullptr) : nullptr;
      if (std::string(list) == "inputs" && param != nullptr &&
          param->value("param_type", "") == "optional") {
        t["absent"] = true;
        assumptions.push_back(fmt::format(
            "input '{}' is left absent: an optional input of the OpDef that neither op.json nor "
            "a test-case file gives a shape",
            t.value("name", "")));
        continue;
      }
      return invalid_argument(fmt::format(
          "{}.shape: missing: op.json does not give it{} (an OpDef declares no shapes)",
          tensor_field(list, i, t),
          has_test_case ? " and the test-case file does not describe it"
                        : " and no msOpST-style test-case file beside the operator does"));
    }
  }
  return {};
}

// Whether `v` is a value of op.json's attribute type `type`.
bool attr_value_fits(const std::string& type, const json& v) {
  auto all = [&](auto pred) { return v.is_array() && std::all_of(v.begin(), v.end(), pred); };
  if (type == "float") return v.is_number();
  if (type == "int") return v.is_number_integer();
  if (type == "bool") return v.is_boolean();
  if (type == "string") return v.is_string();
  if (type == "list_int") return all([](const json& e) { return e.is_number_integer(); });
  if (type == "list_float") return all([](const json& e) { return e.is_number(); });
  return false;
}

// The value the test case gives the attribute `name` ("attr": [{"name", "type", "value"}]) when
// it fits the OpDef's type, else null.
json test_case_attr(const optest_case& test_case, const std::string& name,
                    const std::string& type) {
  const json attrs = test_case.data.is_object() ? test_case.data.value("attr", json()) : json();
  if (!attrs.is_array()) return nullptr;
  for (const json& a : attrs) {
    if (!a.is_object() || a.value("name", "") != name || !a.contains("value")) continue;
    if (attr_value_fits(type, a["value"])) return a["value"];
  }
  return nullptr;
}

// The OpDef's attributes with the test case's values, else their defaults, when op.json lists
// none.
status fill_attrs(json& spec, const json& def, const optest_case& test_case,
                  std::vector<std::string>& assumptions) {
  json attrs = json::array();
  for (const json& a : def.value("attrs", json::array())) {
    const std::string name = a.value("name", "");
    const std::string type = a.value("type", "");
    json value = a.value("value", json());
    if (json given = test_case_attr(test_case, name, type); !given.is_null()) value = given;
    const bool required = a.value("param_type", "") == "required";
    if (required && value.is_null()) {
      return invalid_argument(fmt::format(
          "attrs: missing, and the OpDef's attribute '{}' is required with no default: give "
          "its value in op.json",
          name));
    }
    if (!op_json_attr_type(type) || value.is_null()) {
      if (required) {
        return invalid_argument(fmt::format(
            "attrs: missing, and the OpDef's required attribute '{}' is a {}, which op.json "
            "cannot hold",
            name, type.empty() ? "type without a value" : type));
      }
      assumptions.push_back(fmt::format(
          "the OpDef's optional attribute '{}' ({}) is left out: op.json cannot hold it", name,
          type.empty() ? "no type" : type));
      continue;
    }
    attrs.push_back({{"name", name}, {"type", type}, {"value", value}});
  }
  spec["attrs"] = std::move(attrs);
  return {};
}

}  // namespace

bool op_json_needs_op_def(const json& op_json) {
  if (!op_json.is_object()) return false;
  for (const char* list : tensor_lists) {
    const auto it = op_json.find(list);
    if (it == op_json.end()) return true;
    if (!it->is_array()) return false;  // parse_op_spec says what is wrong with it
    for (const json& t : *it) {
      if (t.is_object() && (lacks_dtype(t) || lacks_shape(t))) return true;
    }
  }
  return false;
}

result<json> complete_op_json(const json& op_json, const std::filesystem::path& package_dir,
                              const op_defs_reader& read_defs, const std::string& file,
                              std::vector<std::string>& assumptions) {
  if (!op_json_needs_op_def(op_json)) return op_json;
  auto fail = [&](const status& st) { return status(st.code(), file + ": " + st.message()); };
  json spec = op_json;
  op_def_source source(read_defs, op_json, package_dir);
  const bool lists_left_out = !spec.contains("inputs") || !spec.contains("outputs");
  if (lists_left_out) {
    auto def = source.get();
    if (!def.ok()) {
      const char* list = spec.contains("inputs") ? "outputs" : "inputs";
      return fail(
          invalid_argument(fmt::format("{}: missing, and {}", list, def.error().message())));
    }
    if (status st = fill_tensor_lists(spec, **def); !st.ok()) return fail(st);
  }
  for (const char* list : tensor_lists) {
    if (!spec[list].is_array()) return spec;  // parse_op_spec says what is wrong with it
  }
  std::vector<std::string> notes;
  const optest_case test_case = first_optest_case(package_dir);
  if (test_case.data.is_object()) {
    auto def = source.get();
    fill_from_test_case(spec, test_case, def.ok() ? *def : nullptr);
  }
  if (status st = settle_shapes(spec, source, test_case.data.is_object(), notes); !st.ok())
    return fail(st);
  if (status st = fill_dtypes(spec, source); !st.ok()) return fail(st);
  if (!spec.contains("attrs")) {
    if (auto def = source.get(); def.ok()) {
      if (status st = fill_attrs(spec, **def, test_case, notes); !st.ok()) return fail(st);
    }
  }
  assumptions.insert(assumptions.end(), notes.begin(), notes.end());
  return spec;
}

}  // namespace aopt::npu
