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

#include "npu/protocol/eval_result.hpp"

namespace aopt::npu {

struct command_values {
  std::string op_dir;
  std::string work_dir;
  std::string kernel_name;
  std::string device_id;
  std::string flush_bytes;
};

std::string expand_command(const std::string& tmpl, const command_values& values);

// How a failing step is classified (every message names the step; the expanded command is the
// last diagnostics line):
//   step      exit status != 0              killed at its wall-clock limit
//   build     compile_error "compile"       compile_error "build_timeout"
//   run       runtime_error "crash"         runtime_error "run_timeout"
//   profile   infra_error "profile_failed"  runtime_error "profile_timeout"
//   install   infra_error "install_failed"  infra_error "install_timeout"
//   flush     infra_error "flush_failed"    infra_error "flush_timeout"
//   version   infra_error "version_failed"  infra_error "version_timeout"
// A run or profile that hangs is the candidate's (it launches the kernel; the run step before the
// profile already proved the toolchain works); a profile that fails otherwise is the profiler's.
// Failures to start a command at all are infra_error with the step as kind.
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
