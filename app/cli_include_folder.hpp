// The CLI11 validator of `--include-dir` (aopt eval, run, init): an existing folder, or a pattern
// such as `repo/kernels/*/op_kernel` that loading the package expands (npu/package_include_dirs).
#pragma once

#include <CLI/CLI.hpp>

namespace aopt::runtime {

// Accepts an existing folder or a glob(3) pattern; a pattern that matches no folder is refused
// when the package is loaded, naming it.
CLI::Validator include_folder();

}  // namespace aopt::runtime
