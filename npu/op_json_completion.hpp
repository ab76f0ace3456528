// op.json completed from what the project already says (issue 34, docs/design.md §7): the
// operator's OpDef (inputs, outputs, their dtypes, attributes with defaults; read by
// npu/sim/device/opdef_reader.hpp) and a msOpST-style test-case file beside it (shapes, dtypes,
// value ranges; npu/optest_case.hpp). op.json then only has to add what CANN does not know.
//
// What op.json says always wins; the rest is filled as follows.
//   * "inputs" / "outputs" left out: the OpDef's, in its order (the kernel's parameter order).
//     Listed in op.json: op.json's list as it stands (its order, its tensors).
//   * a tensor's "shape": from the test case's description of that tensor (by its "name", else
//     by the tensor's position in the OpDef). An optional input of the OpDef no one gives a
//     shape is absent (said as an assumption).
//   * a tensor's "dtype": from the test case, else from the OpDef. An OpDef's DataType lists are
//     parallel (column k of every list is one supported combination): the columns that agree
//     with every dtype already known are kept, and a dtype is filled only when they all give the
//     same one. None agreeing is a conflict, several dtypes an ambiguity: both are errors naming
//     the field and the choices.
//   * "attrs" left out: the OpDef's attributes with the test case's values ("attr", where they
//     fit the attribute's type), else their defaults; a required one without either is an error
//     naming it.
// A field nothing gives is an error naming it ("op.json: outputs[0].shape: missing: ...").
//
// An op.json that lists every tensor with its dtype and shape needs none of this: it is returned
// unchanged without reading the OpDef (which compiles the host sources), so every existing
// package loads as before. One that is malformed (a field of the wrong type, an unknown key:
// check_incomplete_op_spec) is refused as parse_op_spec would refuse it, before the OpDef is
// read. No JSON (op.json, the OpDef, the test case) is read here but through json_fields
// (npu/protocol/json_fields.hpp): a field of an unexpected type is an error naming it, never an
// exception.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::npu {

// Whether `op_json` leaves out something the OpDef or a test case must give.
bool op_json_needs_op_def(const nlohmann::json& op_json);

// The OpDefs of the package as read_op_defs returns them; called at most once, and only when
// op_json_needs_op_def.
using op_defs_reader = std::function<result<nlohmann::json>()>;

// `op_json` (the parsed op.json of the package in `package_dir`) with what it leaves out filled
// as above; `assumptions` receives one sentence per assumption made. Errors (invalid_argument)
// start with `file` and name the field.
result<nlohmann::json> complete_op_json(const nlohmann::json& op_json,
                                        const std::filesystem::path& package_dir,
                                        const op_defs_reader& read_defs, const std::string& file,
                                        std::vector<std::string>& assumptions);

}  // namespace aopt::npu
