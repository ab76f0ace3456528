// How an evaluation ended, and its name in every stored and transmitted form. Apart from the
// eval_result's JSON form (eval_result.hpp), which needs aopt's base library: the judge names a
// status, and the candidate-side runtime it is archived with links no base
// (npu/sim/CMakeLists.txt).
//
// Persisted as text: do not rename a status without a storage migration.
#pragma once

#include <string>

namespace aopt::npu {

enum class eval_status {
  ok,
  compile_error,
  runtime_error,
  precision_error,
  timeout,
  infra_error,
};

const char* to_string(eval_status s);
// Returns false when `text` names no status.
bool parse_eval_status(const std::string& text, eval_status& out);

}  // namespace aopt::npu
