// Reads what an operator's OpDef declares (inputs, outputs, their dtypes and formats,
// attributes with their types and defaults) from its own host sources, by compiling them with
// the shim and running the registration in the sandbox (aopt_sim/op_def_records.h) rather than
// by reading C++ with patterns; and writes op.json's skeleton from it (`aopt init`, issue 34):
// what CANN knows comes from the project, op.json adds shapes, value ranges and the reference.
//
// Thread-safety: reentrant (each call uses its own scratch dir).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "npu/sim/device/candidate_builder.hpp"

namespace aopt::npu {

// The OpDefs the package's op_host/*.cpp register, as op_defs_json() prints them: an array of
// {"op_type", "inputs", "outputs", "attrs"}. Errors: invalid_argument for a package without
// host sources or one whose host does not compile (the first compiler error), internal for a
// failure of the machine. `work_dir` holds the scratch dirs and, in opdef-cache/, the OpDefs
// read before, by a content hash of the package's sources and the toolchain
// (candidate_builder::opdef_reader_key): a package read again is not compiled again.
// `include_dirs`: the repository's folders its helper headers come from (op.json's
// include_dirs, `aopt init --include-dir`), joined as load_op_package joins them.
result<nlohmann::json> read_op_defs(const std::filesystem::path& package_dir,
                                    const sim_toolchain& toolchain,
                                    const std::filesystem::path& work_dir,
                                    const std::vector<std::filesystem::path>& include_dirs = {});

// The key read_op_defs caches the package's OpDefs under in <work_dir>/opdef-cache (a
// compile_cache): a content hash of its sources and the toolchain.
result<std::string> op_defs_cache_key(const std::filesystem::path& package_dir,
                                      const sim_toolchain& toolchain,
                                      const std::vector<std::filesystem::path>& include_dirs = {});

// The OpDef among `op_defs` whose op type is one of `names` ignoring case and underscores
// ("BoxIou" for "box_iou"), tried in order, else the only one; null when none is.
const nlohmann::json* find_op_def(const nlohmann::json& op_defs,
                                  const std::vector<std::string>& names);
// Why find_op_def found none: "2 OpDefs (ScatterMean, ScatterMeanDiv) and none named after the
// operator".
std::string op_defs_listed(const nlohmann::json& op_defs);

// op.json's skeleton for the package from its OpDefs: the OpDef whose op type is the folder's
// name (ignoring case and underscores), else the only one; name and kernel entry in the
// snake_case CANN derives, inputs and outputs with the first dtype each declares, attributes
// with their defaults, the file names found in the package. Shapes (and input value ranges)
// come from the first case of a msOpST-style test-case file beside the operator (a *.json array
// of cases with input_desc/output_desc), else are [1] with a description saying to set them;
// tiling_func is left out (the registration names it).
// `wanted_type`, when given, chooses the OpDef instead (a host registering several, none named
// after the folder: ScatterMaxV1 and ScatterMaxArgmaxV1 in scatter_max/).
result<nlohmann::json> op_json_skeleton(const std::filesystem::path& package_dir,
                                        const nlohmann::json& op_defs,
                                        const std::string& wanted_type = "");

}  // namespace aopt::npu
