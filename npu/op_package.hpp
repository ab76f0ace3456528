// An operator package (docs/design.md §7) as loaded from disk: op.json (npu/protocol/op_spec.hpp) plus
// the four source files it names.
#pragma once

#include <filesystem>
#include <string>

#include "base/status.hpp"
#include "npu/protocol/op_spec.hpp"

namespace aopt::npu {

// An operator package on disk with its sources loaded.
struct op_package {
  std::filesystem::path dir;
  op_spec spec;
  std::string tiling_header_source;
  std::string host_source;    // T: the tiling program
  std::string kernel_source;  // K: the device kernel
  std::string reference_source;
};

// Loads <dir>/op.json and the files it names, each opened without following links
// (read_file_beneath) and required to be UTF-8. Errors name the file and the reason;
// failed_precondition for a file that is a link (out of the package or not).
result<op_package> load_op_package(const std::filesystem::path& dir);

}  // namespace aopt::npu
