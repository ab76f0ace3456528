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

// The definitions are in the simulator library (runtime/host_op_def.cpp), compiled once.
std::vector<op_def_description>& op_def_descriptions();

// op.json's dtype name for a ge::DataType ("" for one op.json cannot hold).
const char* op_json_dtype(ge::DataType t);

std::string json_quoted(const std::string& text);

// Every recorded OpDef as one JSON array:
// [{"op_type": "Knn", "inputs": [{"name": "xyz", "param_type": "required",
//   "dtypes": ["float32"], "formats": [2]}], "outputs": [...],
//   "attrs": [{"name": "k", "param_type": "optional", "type": "int", "value": 1}]}]
std::string op_defs_json();

}  // namespace aopt_sim
