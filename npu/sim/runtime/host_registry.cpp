// The host shim's registries (aopt_sim/tiling_function_registry.h, aopt_sim/op_def_records.h,
// aopt_sim/tiling_parse_registry.h),
// compiled once into the simulator library instead of in every host unit.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aopt_sim/op_def_records.h"
#include "aopt_sim/tiling_function_registry.h"
#include "aopt_sim/tiling_parse_registry.h"

namespace aopt_sim {

tiling_function_registry& tiling_functions() {
  static tiling_function_registry registry;
  return registry;
}

void register_tiling_function(const std::string& op_type,
                              uint32_t (*function)(gert::TilingContext*)) {
  if (function == nullptr) return;
  tiling_functions().functions.push_back({op_type, function});
}

op_def_record::op_def_record(void (*construct)()) {
  tiling_functions().op_defs.push_back(construct);
}

void construct_op_defs() {
  // Input sets run on several threads (driver.hpp): the first lookup constructs every OpDef and
  // the others wait until it is done (a flag set before constructing let a second set's lookup
  // find no tiling function while the first was still registering it).
  static const bool constructed = [] {
    for (const auto& construct : tiling_functions().op_defs) construct();
    return true;
  }();
  static_cast<void>(constructed);
}

// The tiling function registered for the operator `op_name` (its op type matched ignoring case
// and underscores), else the only one registered; null when none (or several for other ops).
// `registered_as` receives the op type it was registered for.
const tiling_function* registered_tiling_function(const char* op_name, std::string* registered_as) {
  construct_op_defs();
  tiling_function_registry& r = tiling_functions();
  const tiling_function_entry* found = nullptr;
  for (const auto& e : r.functions) {
    if (op_type_key(e.op_type.c_str()) == op_type_key(op_name)) {
      found = &e;
      break;
    }
  }
  if (found == nullptr && r.functions.size() == 1) found = &r.functions.front();
  if (found == nullptr) return nullptr;
  if (registered_as != nullptr) *registered_as = found->op_type;
  return &found->function;
}

namespace {

std::map<std::string, tiling_parse_fn>& tiling_parses() {
  static std::map<std::string, tiling_parse_fn> registry;
  return registry;
}

}  // namespace

void add_tiling_parse(const std::string& op_type, tiling_parse_fn parse) {
  tiling_parses()[op_type] = std::move(parse);
}

const tiling_parse_fn* registered_tiling_parse(const std::string& op_type) {
  const auto it = tiling_parses().find(op_type);
  return it == tiling_parses().end() ? nullptr : &it->second;
}

std::vector<op_def_description>& op_def_descriptions() {
  static std::vector<op_def_description> descriptions;
  return descriptions;
}

// op.json's dtype name for a ge::DataType ("" for one op.json cannot hold).
const char* op_json_dtype(ge::DataType t) {
  switch (t) {
    case ge::DT_FLOAT:
      return "float32";
    case ge::DT_FLOAT16:
      return "float16";
    case ge::DT_BF16:
      return "bfloat16";
    case ge::DT_INT8:
      return "int8";
    case ge::DT_UINT8:
      return "uint8";
    case ge::DT_INT16:
      return "int16";
    case ge::DT_INT32:
      return "int32";
    case ge::DT_INT64:
      return "int64";
    case ge::DT_BOOL:
      return "bool";
    default:
      return "";
  }
}

std::string json_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char digits[] = "0123456789abcdef";
      out += "\\u00";
      out += digits[(c >> 4) & 0xF];
      out += digits[c & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Every recorded OpDef as one JSON array:
// [{"op_type": "Knn", "inputs": [{"name": "xyz", "param_type": "required",
//   "dtypes": ["float32"], "formats": [2]}], "outputs": [...],
//   "attrs": [{"name": "k", "param_type": "optional", "type": "int", "value": 1}]}]
std::string op_defs_json() {
  auto option = [](int o) {
    return json_quoted(o == 1 ? "optional" : o == 3 ? "dynamic" : o == 0 ? "ignore" : "required");
  };
  auto params = [&](const std::vector<op_param_record>& list) {
    std::string out = "[";
    for (size_t i = 0; i < list.size(); ++i) {
      const op_param_record& p = list[i];
      out += i == 0 ? "" : ",";
      out += "{\"name\":" + json_quoted(p.name) + ",\"param_type\":" + option(p.param_type) +
             ",\"dtypes\":[";
      for (size_t d = 0; d < p.dtypes.size(); ++d) {
        out += (d == 0 ? "" : ",") + json_quoted(op_json_dtype(p.dtypes[d]));
      }
      out += "],\"formats\":[";
      for (size_t f = 0; f < p.formats.size(); ++f) {
        out += (f == 0 ? "" : ",") + std::to_string(static_cast<int>(p.formats[f]));
      }
      out += "]}";
    }
    return out + "]";
  };
  std::string out = "[";
  const auto& all = op_def_descriptions();
  for (size_t i = 0; i < all.size(); ++i) {
    const op_def_description& d = all[i];
    out += i == 0 ? "" : ",";
    out += "{\"op_type\":" + json_quoted(d.op_type) + ",\"inputs\":" + params(d.inputs) +
           ",\"outputs\":" + params(d.outputs) + ",\"attrs\":[";
    for (size_t a = 0; a < d.attrs.size(); ++a) {
      const op_attr_record& r = d.attrs[a];
      out += (a == 0 ? "" : ",") + std::string("{\"name\":") + json_quoted(r.name) +
             ",\"param_type\":" + option(r.attr_type) + ",\"type\":" + json_quoted(r.type) +
             ",\"value\":" + (r.value.empty() ? "null" : r.value) + "}";
    }
    out += "]}";
  }
  return out + "]";
}

}  // namespace aopt_sim
