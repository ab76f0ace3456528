// The [cann] command templates: placeholder expansion and running one step, with the outcome
// classified for an eval_result.
//
// Placeholders {op_dir} {work_dir} {kernel_name} {device_id} {flush_bytes} are replaced by
// their values quoted for the shell (so a path with spaces stays one word; `--output={work_dir}/x`
// still concatenates); any other brace text (`${VAR:-x}`) is left to the shell.
//
// Thread-safety: free functions.
#pragma once

#include <string>
#include <vector>

#include "npu/eval_result.hpp"

namespace aopt::npu {

struct command_values {
  std::string op_dir;
  std::string work_dir;
  std::string kernel_name;
  std::string device_id;
  std::string flush_bytes;
};

std::string expand_command(const std::string& tmpl, const command_values& values);

// How a failing step is classified: build failures are the candidate's (compile_error), a run
// that fails is the candidate's (runtime_error), the other steps are the toolchain's
// (infra_error). A step killed at its wall-clock limit is, as on the simulator, a compile_error
// "compile_timeout" for build and a timeout "wall_clock" for run (a run past its limit may be a
// loaded machine: is_transient_failure), an infra_error for the others.
enum class command_step { build, install, run, profile, flush, version };
const char* to_string(command_step s);

struct command_outcome {
  bool ok = false;
  eval_status status = eval_status::infra_error;  // when !ok
  std::string error_kind;
  std::string message;                   // names the step, the outcome and the first stderr line
  std::vector<std::string> diagnostics;  // trimmed stderr
  std::string stdout_text;
  double seconds = 0;
};

// Runs `tmpl` expanded with /bin/sh -c in `working_dir`, killed after `timeout_seconds`.
command_outcome run_command(command_step step, const std::string& tmpl,
                            const command_values& values, const std::string& working_dir,
                            double timeout_seconds);

}  // namespace aopt::npu
