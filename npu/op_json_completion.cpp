#include "npu/op_json_completion.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "npu/optest_case.hpp"
#include "npu/protocol/json_fields.hpp"
#include "npu/protocol/op_spec.hpp"
#include "npu/sim/device/opdef_reader.hpp"

namespace aopt::npu {

namespace {

using json = nlohmann::json;

const char* const tensor_lists[] = {"inputs", "outputs"};

// What completion reads of an op.json tensor. check_incomplete_op_spec has checked the types of
// op.json's fields before anything is completed; they are still read through json_fields, so
// that no read here can throw whatever the JSON holds.
struct tensor_entry {
  std::string name;
  bool inplace = false;
  bool absent = false;
  bool has_dtype = false;
  bool has_shape = false;
  bool has_range = false;
  std::string distribution;
  std::string dtype;

  bool lacks_dtype() const { return !has_dtype && !inplace; }
  bool lacks_shape() const { return !has_shape && !inplace && !absent; }
};

status read_tensor_entry(const json_fields& t, tensor_entry& out) {
  out = tensor_entry{};
  AOPT_RETURN_IF_ERROR(t.expect_object());
  AOPT_RETURN_IF_ERROR(t.read("name", out.name));
  AOPT_RETURN_IF_ERROR(t.read("absent", out.absent));
  AOPT_RETURN_IF_ERROR(t.read("distribution", out.distribution));
  AOPT_RETURN_IF_ERROR(t.read("dtype", out.dtype));
  out.inplace = t.has("inplace");
  out.has_dtype = t.has("dtype");
  out.has_shape = t.has("shape");
  out.has_range = t.has("range");
  return {};
}

// The attribute types op.json can hold (npu/protocol/op_spec.hpp).
bool op_json_attr_type(const std::string& type) {
  for (const char* t : {"float", "int", "bool", "list_int", "list_float", "string"}) {
    if (type == t) return true;
  }
  return false;
}

// "inputs[1] ('y')": how errors name a tensor.
std::string tensor_field(const char* list, size_t index, const tensor_entry& t) {
  return fmt::format("{}[{}] ('{}')", list, index, t.name);
}

// An OpDef as read_op_defs prints it, read into types once (parse_op_def): completion reads no
// JSON of it afterwards.
struct op_def_param {
  std::string name;
  std::string param_type;           // "required", "optional", "dynamic"
  std::vector<std::string> dtypes;  // op.json's names; "" for one op.json cannot hold
};
struct op_def_attr {
  std::string name;
  std::string param_type;
  std::string type;
  json value;  // null: no default
};
struct op_def {
  std::string op_type;
  std::vector<op_def_param> inputs;
  std::vector<op_def_attr> attrs;
  std::vector<op_def_param> outputs;

  const std::vector<op_def_param>& list(const char* name) const {
    return std::string(name) == "inputs" ? inputs : outputs;
  }
};

status parse_op_def_params(const json_fields& def, const char* list,
                           std::vector<op_def_param>& out) {
  std::vector<json_fields> params;
  AOPT_RETURN_IF_ERROR(def.read_elements(list, params));
  for (const json_fields& p : params) {
    op_def_param param;
    AOPT_RETURN_IF_ERROR(p.read("name", param.name, true));
    AOPT_RETURN_IF_ERROR(p.read("param_type", param.param_type));
    std::vector<json_fields> dtypes;
    AOPT_RETURN_IF_ERROR(p.read_elements("dtypes", dtypes));
    for (const json_fields& d : dtypes) {
      if (!d.value().is_string()) {
        return d.error("expected a string, got " + json_type_phrase(d.value()));
      }
      param.dtypes.push_back(d.value().get<std::string>());
    }
    out.push_back(std::move(param));
  }
  return {};
}

// One element of read_op_defs' array; errors name the field ("inputs[0].name: ...").
result<op_def> parse_op_def_fields(const json& value) {
  const json_fields def(value, "");
  op_def out;
  AOPT_RETURN_IF_ERROR(def.expect_object());
  AOPT_RETURN_IF_ERROR(def.read("op_type", out.op_type, true));
  AOPT_RETURN_IF_ERROR(parse_op_def_params(def, "inputs", out.inputs));
  AOPT_RETURN_IF_ERROR(parse_op_def_params(def, "outputs", out.outputs));
  std::vector<json_fields> attrs;
  AOPT_RETURN_IF_ERROR(def.read_elements("attrs", attrs));
  for (const json_fields& a : attrs) {
    op_def_attr attr;
    AOPT_RETURN_IF_ERROR(a.read("name", attr.name, true));
    AOPT_RETURN_IF_ERROR(a.read("param_type", attr.param_type));
    AOPT_RETURN_IF_ERROR(a.read("type", attr.type));
    if (const json* v = a.find("value")) attr.value = *v;
    out.attrs.push_back(std::move(attr));
  }
  return out;
}

// The same, errors said of the OpDef ("the OpDef's inputs[0].name: ...").
result<op_def> parse_op_def(const json& value) {
  auto def = parse_op_def_fields(value);
  if (!def.ok()) return status(def.error().code(), "the OpDef's " + def.error().message());
  return def;
}

// The OpDef, read once when first needed.
class op_def_source {
 public:
  op_def_source(const op_defs_reader& read, const json& op_json,
                const std::filesystem::path& package_dir)
      : read_(read), op_json_(op_json), package_dir_(package_dir) {}

  // The operator's OpDef, or why there is none ("the host registers no OpDef", a compile error).
  result<const op_def*> get() {
    if (!read_once_) {
      read_once_ = true;
      why_ = read();
    }
    if (!def_) return invalid_argument(why_);
    return &*def_;
  }

 private:
  // Reads the OpDef into def_, or says why there is none.
  std::string read() {
    if (!read_) return "the OpDef is not read for this package (an uploaded op.json must say it)";
    auto defs = read_();
    if (!defs.ok()) return "the OpDef could not be read: " + defs.error().message();
    std::vector<std::string> names;
    for (const char* key : {"name", "kernel_entry"}) {
      const auto it = op_json_.find(key);
      if (it != op_json_.end() && it->is_string()) names.push_back(it->get<std::string>());
    }
    names.push_back(std::filesystem::absolute(package_dir_).lexically_normal().filename().string());
    const json* found = find_op_def(*defs, names);
    if (found == nullptr) {
      return defs->is_array() && defs->empty() ? "the host sources register no OpDef"
                                               : "the host registers " + op_defs_listed(*defs);
    }
    auto parsed = parse_op_def(*found);
    if (!parsed.ok()) return parsed.error().message();
    def_ = std::move(parsed).value();
    return "";
  }

  const op_defs_reader& read_;
  const json& op_json_;
  std::filesystem::path package_dir_;
  bool read_once_ = false;
  std::optional<op_def> def_;
  std::string why_;
};

// The OpDef's parameter named `name` in its list `list`, and its position; null when none.
const op_def_param* find_param(const op_def& def, const char* list, const std::string& name,
                               size_t* position) {
  const std::vector<op_def_param>& params = def.list(list);
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name == name) {
      if (position != nullptr) *position = i;
      return &params[i];
    }
  }
  return nullptr;
}

// The tensor lists op.json leaves out, from the OpDef in its order.
status fill_tensor_lists(json& spec, const op_def& def) {
  for (const char* list : tensor_lists) {
    if (spec.contains(list)) continue;
    json tensors = json::array();
    const std::vector<op_def_param>& params = def.list(list);
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].param_type == "dynamic") {
        return invalid_argument(fmt::format(
            "{}: missing, and the OpDef's {}[{}] '{}' is a dynamic (list) parameter: list its "
            "tensors in op.json",
            list, list, i, params[i].name));
      }
      tensors.push_back({{"name", params[i].name}});
    }
    spec[list] = std::move(tensors);
  }
  return {};
}

// An error about a field of the test case, said with its file ("cases.json case 1: ...").
status in_test_case(const optest_case& test_case, const status& st) {
  return st.ok() ? st : status(st.code(), test_case.source + ": " + st.message());
}

// The descriptions of one list of a test case ("input_desc", "output_desc"), each with its name
// ("" when it has none); errors name the file and the field.
status test_case_descs(const optest_case& test_case, const char* key,
                       std::vector<json_fields>& descs, std::vector<std::string>& names) {
  const json_fields data(test_case.data, "");
  names.clear();
  descs.clear();
  if (!data.has(key)) return {};
  status st = data.read_elements(key, descs);
  for (size_t i = 0; st.ok() && i < descs.size(); ++i) {
    names.emplace_back();
    if (descs[i].is_object()) st = descs[i].read("name", names.back());
  }
  return in_test_case(test_case, st);
}

// Shapes, dtypes and value ranges op.json leaves out, from the first test case: a description
// is matched by its "name", else by the tensor's position in the OpDef (`def` may be null: then
// by the tensor's position in op.json).
status fill_from_test_case(json& spec, const optest_case& test_case, const op_def* def) {
  for (const char* list : tensor_lists) {
    const bool inputs = std::string(list) == "inputs";
    std::vector<json_fields> descs;
    std::vector<std::string> desc_names;
    AOPT_RETURN_IF_ERROR(
        test_case_descs(test_case, inputs ? "input_desc" : "output_desc", descs, desc_names));
    if (descs.empty()) continue;
    json& tensors = spec[list];
    for (size_t i = 0; i < tensors.size(); ++i) {
      json& t = tensors[i];
      tensor_entry entry;
      AOPT_RETURN_IF_ERROR(
          read_tensor_entry(json_fields(t, fmt::format("{}[{}]", list, i)), entry));
      if (entry.inplace || entry.absent) continue;
      const json* desc = nullptr;
      for (size_t d = 0; d < descs.size(); ++d) {
        if (!entry.name.empty() && desc_names[d] == entry.name) desc = &descs[d].value();
      }
      size_t position = i;
      if (desc == nullptr && (def == nullptr || find_param(*def, list, entry.name, &position))) {
        if (position < descs.size()) desc = &descs[position].value();
      }
      if (desc == nullptr) continue;
      if (entry.lacks_shape()) {
        if (json shape = optest_shape(*desc); !shape.is_null()) t["shape"] = shape;
      }
      if (entry.lacks_dtype()) {
        if (std::string dtype = optest_dtype(*desc); !dtype.empty()) t["dtype"] = dtype;
      }
      if (inputs && !entry.has_range && entry.distribution != "permutation" &&
          entry.distribution != "mask") {
        if (json range = optest_range(*desc); !range.is_null()) t["range"] = range;
      }
    }
  }
  return {};
}

// One column of the OpDef's parallel DataType lists: tensor name -> dtype ("" for one op.json
// cannot hold).
using dtype_column = std::map<std::string, std::string>;

// The OpDef's dtype combinations; an error when its lists are not parallel (lengths other than
// 1 and the longest).
result<std::vector<dtype_column>> dtype_columns(const op_def& def) {
  size_t width = 0;
  for (const char* list : tensor_lists) {
    for (const op_def_param& p : def.list(list)) width = std::max(width, p.dtypes.size());
  }
  std::vector<dtype_column> columns(width);
  for (const char* list : tensor_lists) {
    for (const op_def_param& p : def.list(list)) {
      if (p.dtypes.empty()) continue;  // says nothing
      if (p.dtypes.size() != 1 && p.dtypes.size() != width) {
        return invalid_argument(fmt::format(
            "the OpDef's DataType lists are not parallel ('{}' lists {} dtypes, another {})",
            p.name, p.dtypes.size(), width));
      }
      for (size_t k = 0; k < width; ++k) {
        columns[k][p.name] = p.dtypes[p.dtypes.size() == 1 ? 0 : k];
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

// The tensors of op.json's list `list` as completion reads them.
status tensor_entries(const json& spec, const char* list, std::vector<tensor_entry>& out) {
  out.clear();
  std::vector<json_fields> tensors;
  AOPT_RETURN_IF_ERROR(json_fields(spec, "").read_elements(list, tensors));
  for (const json_fields& t : tensors) {
    out.emplace_back();
    AOPT_RETURN_IF_ERROR(read_tensor_entry(t, out.back()));
  }
  return {};
}

// The dtypes op.json leaves out, from the OpDef's combinations that agree with the known ones.
status fill_dtypes(json& spec, op_def_source& source) {
  std::map<std::string, std::vector<tensor_entry>> entries;
  bool any = false;
  for (const char* list : tensor_lists) {
    AOPT_RETURN_IF_ERROR(tensor_entries(spec, list, entries[list]));
    for (const tensor_entry& t : entries[list]) any = any || t.lacks_dtype();
  }
  if (!any) return {};
  auto def = source.get();
  dtype_column known;
  for (const char* list : tensor_lists) {
    for (const tensor_entry& t : entries[list]) {
      if (t.has_dtype) known[t.name] = t.dtype;
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
      const tensor_entry& t = entries[list][i];
      if (!t.lacks_dtype()) continue;
      const std::string field = tensor_field(list, i, t) + ".dtype";
      if (!def.ok()) {
        return invalid_argument(fmt::format("{}: missing, and {}", field, def.error().message()));
      }
      const std::string& op_type = (*def)->op_type;
      if (find_param(**def, list, t.name, nullptr) == nullptr) {
        return invalid_argument(
            fmt::format("{}: missing, and the OpDef of {} declares no {} '{}'", field, op_type,
                        std::string(list) == "inputs" ? "input" : "output", t.name));
      }
      std::set<std::string> choices;
      for (const dtype_column& column : agreeing) {
        if (auto it = column.find(t.name); it != column.end()) choices.insert(it->second);
      }
      if (t.absent && (choices.size() != 1 || choices.begin()->empty())) {
        // An absent input carries no data: any dtype the OpDef allows for it will do.
        tensors[i]["dtype"] =
            choices.empty() || choices.begin()->empty() ? "float32" : *choices.begin();
        continue;
      }
      if (choices.empty()) {
        return invalid_argument(fmt::format(
            "{}: missing, and no dtype combination of the OpDef of {} agrees with the dtypes "
            "op.json gives ({}): the OpDef declares {}",
            field, op_type, known_text.empty() ? "none" : known_text,
            columns_text.empty() ? "no dtypes" : columns_text));
      }
      if (choices.size() > 1) {
        std::string listed;
        for (const std::string& c : choices) listed += (listed.empty() ? "" : " or ") + c;
        return invalid_argument(fmt::format(
            "{}: missing, and the OpDef of {} allows {} for it{}: say which in op.json", field,
            op_type, listed,
            known_text.empty() ? "" : " with the dtypes op.json gives (" + known_text + ")"));
      }
      if (choices.begin()->empty()) {
        return invalid_argument(
            fmt::format("{}: missing, and the OpDef of {} declares a dtype op.json cannot hold",
                        field, op_type));
      }
      tensors[i]["dtype"] = *choices.begin();
    }
  }
  return {};
}

// Shapes still missing: an optional input of the OpDef is absent, anything else an error.
status settle_shapes(json& spec, op_def_source& source, bool has_test_case,
                     std::vector<std::string>& assumptions) {
  for (const char* list : tensor_lists) {
    std::vector<tensor_entry> entries;
    AOPT_RETURN_IF_ERROR(tensor_entries(spec, list, entries));
    json& tensors = spec[list];
    for (size_t i = 0; i < entries.size(); ++i) {
      const tensor_entry& t = entries[i];
      if (!t.lacks_shape()) continue;
      auto def = source.get();
      const op_def_param* param = def.ok() ? find_param(**def, list, t.name, nullptr) : nullptr;
      if (std::string(list) == "inputs" && param != nullptr && param->param_type == "optional") {
        tensors[i]["absent"] = true;
        assumptions.push_back(fmt::format(
            "input '{}' is left absent: an optional input of the OpDef that neither op.json nor "
            "a test-case file gives a shape",
            t.name));
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
// it fits the OpDef's type, else null; errors name the test case's field.
status test_case_attr(const optest_case& test_case, const std::string& name,
                      const std::string& type, json& out) {
  out = nullptr;
  const json_fields data(test_case.data, "");
  if (!data.has("attr")) return {};
  std::vector<json_fields> attrs;
  AOPT_RETURN_IF_ERROR(in_test_case(test_case, data.read_elements("attr", attrs)));
  for (const json_fields& a : attrs) {
    std::string given_name;
    AOPT_RETURN_IF_ERROR(in_test_case(test_case, a.read("name", given_name)));
    const json* value = a.find("value");
    if (given_name != name || value == nullptr) continue;
    if (attr_value_fits(type, *value)) out = *value;
  }
  return {};
}

// The OpDef's attributes with the test case's values, else their defaults, when op.json lists
// none.
status fill_attrs(json& spec, const op_def& def, const optest_case& test_case,
                  std::vector<std::string>& assumptions) {
  json attrs = json::array();
  for (const op_def_attr& a : def.attrs) {
    json value = a.value;
    json given;
    if (test_case.data.is_object()) {
      AOPT_RETURN_IF_ERROR(test_case_attr(test_case, a.name, a.type, given));
    }
    if (!given.is_null()) value = given;
    const bool required = a.param_type == "required";
    if (required && value.is_null()) {
      return invalid_argument(fmt::format(
          "attrs: missing, and the OpDef's attribute '{}' is required with no default: give "
          "its value in op.json",
          a.name));
    }
    if (!op_json_attr_type(a.type) || value.is_null()) {
      if (required) {
        return invalid_argument(fmt::format(
            "attrs: missing, and the OpDef's required attribute '{}' is a {}, which op.json "
            "cannot hold",
            a.name, a.type.empty() ? "type without a value" : a.type));
      }
      assumptions.push_back(fmt::format(
          "the OpDef's optional attribute '{}' ({}) is left out: op.json cannot hold it", a.name,
          a.type.empty() ? "no type" : a.type));
      continue;
    }
    attrs.push_back({{"name", a.name}, {"type", a.type}, {"value", value}});
  }
  spec["attrs"] = std::move(attrs);
  return {};
}

// An output named like an input is CANN's ref output of it (op_spec.hpp): "inplace" to
// completion as to the parse, so its dtype and shape are the input's, never the OpDef's to fill.
json with_ref_outputs_marked(json spec) {
  if (!spec.is_object()) return spec;
  const auto inputs = spec.find("inputs");
  const auto outputs = spec.find("outputs");
  if (inputs == spec.end() || outputs == spec.end() || !inputs->is_array() || !outputs->is_array())
    return spec;
  std::set<std::string> input_names;
  for (const json& t : *inputs) {
    if (t.is_object() && t.contains("name") && t["name"].is_string())
      input_names.insert(t["name"].get<std::string>());
  }
  for (json& t : *outputs) {
    if (t.is_object() && !t.contains("inplace") && t.contains("name") && t["name"].is_string() &&
        input_names.count(t["name"].get<std::string>()) != 0)
      t["inplace"] = t["name"];
  }
  return spec;
}

}  // namespace

bool op_json_needs_op_def(const json& original) {
  const json op_json = with_ref_outputs_marked(original);
  if (!op_json.is_object()) return false;
  for (const char* list : tensor_lists) {
    const auto it = op_json.find(list);
    if (it == op_json.end()) return true;
    if (!it->is_array()) return false;  // parse_op_spec says what is wrong with it
    for (size_t i = 0; i < it->size(); ++i) {
      tensor_entry t;
      // A tensor of the wrong shape: parse_op_spec says what is wrong with it.
      if (!read_tensor_entry(json_fields((*it)[i], ""), t).ok()) continue;
      if (t.lacks_dtype() || t.lacks_shape()) return true;
    }
  }
  return false;
}

result<json> complete_op_json(const json& original, const std::filesystem::path& package_dir,
                              const op_defs_reader& read_defs, const std::string& file,
                              std::vector<std::string>& assumptions) {
  const json op_json = with_ref_outputs_marked(original);
  if (!op_json_needs_op_def(op_json)) return op_json;
  // A malformed op.json is refused as it is, before the OpDef (a compile of the host sources)
  // is read for it: nothing below reads a field of a type it does not expect.
  AOPT_RETURN_IF_ERROR(check_incomplete_op_spec(op_json, file));
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
  std::vector<std::string> notes;
  const optest_case test_case = first_optest_case(package_dir);
  if (test_case.data.is_object()) {
    auto def = source.get();
    if (status st = fill_from_test_case(spec, test_case, def.ok() ? *def : nullptr); !st.ok())
      return fail(st);
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
