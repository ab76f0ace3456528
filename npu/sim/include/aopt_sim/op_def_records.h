// aopt simulator, host side: what an operator's OpDef declares (inputs, outputs, their dtypes
// and formats, attributes with their types and defaults), recorded as the OpDef is constructed
// so that aopt reads the operator's prototype from its own registration rather than from a
// copy in op.json (issue 34: `aopt init` writes op.json's skeleton from it). OP_ADD records each
// OpDef when the registry first constructs it (tiling_function_registry.h).
// The records live in the process that runs the host code only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "graph/types.h"

namespace aopt_sim {

struct op_param_record {
  std::string name;
  int param_type = 2;  // ops::Option: 1 OPTIONAL, 2 REQUIRED, 3 DYNAMIC
  std::vector<ge::DataType> dtypes;
  std::vector<ge::Format> formats;
};

struct op_attr_record {
  std::string name;
  int attr_type = 1;  // ops::Option: 1 OPTIONAL, 2 REQUIRED
  std::string type;   // op.json's attribute types: bool, float, int, string, list_int, ...
  std::string value;  // the default as JSON text
};

struct op_def_description {
  std::string op_type;
  std::vector<op_param_record> inputs;
  std::vector<op_param_record> outputs;
  std::vector<op_attr_record> attrs;
};

inline std::vector<op_def_description>& op_def_descriptions() {
  static std::vector<op_def_description> descriptions;
  return descriptions;
}

// op.json's dtype name for a ge::DataType ("" for one op.json cannot hold).
inline const char* op_json_dtype(ge::DataType t) {
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

inline std::string json_quoted(const std::string& text) {
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
inline std::string op_defs_json() {
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
