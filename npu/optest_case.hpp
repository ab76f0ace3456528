// msOpST-style test-case files beside an operator (a *.json array of cases, each with
// "input_desc" and "output_desc" lists of {"name"?, "type", "shape", "value_range", "format"}):
// what a CANN project already says about the shapes, dtypes and value ranges its operator is
// tested on. `aopt init` writes op.json's skeleton from the first case, and loading a package
// fills what its op.json leaves out from it (npu/op_json_completion.hpp, issue 34).
//
// Fields may be a value or a list of alternatives (msOpST generates one case per combination):
// the first alternative is read.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace aopt::npu {

struct optest_case {
  nlohmann::json data;  // the case object; null when the package has no case file
  std::string source;   // "<file> case <case_name>", for the notes that cite it
};

// The first case of the first (by name) case file in `package_dir` itself (not op.json, not a
// link, a JSON array whose first element has an "input_desc" list); data null when none.
optest_case first_optest_case(const std::filesystem::path& package_dir);

// op.json's dtype name for a description's "type" ("float" -> "float32", "bf16" -> "bfloat16"),
// "" for none or one op.json cannot hold.
std::string optest_dtype(const nlohmann::json& desc);

// A description's shape when every dimension is a positive integer, else null.
nlohmann::json optest_shape(const nlohmann::json& desc);

// A description's value range [lo, hi] (lo <= hi), else null.
nlohmann::json optest_range(const nlohmann::json& desc);

}  // namespace aopt::npu
