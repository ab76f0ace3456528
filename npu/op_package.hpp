// An operator package (docs/design.md §7) as loaded from disk: op.json (npu/protocol/op_spec.hpp),
// the four source files it names, and every other source file of the package (helper headers,
// split kernels: packages as teams lay them out, issue 34), which the candidate's build lays out
// in the same tree so that the operator's own #includes resolve.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

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
  // The package's other C/C++ source files (by extension) by their path relative to the package
  // ("op_kernel/knn.h", "op_host/common/util.h"): never edited by the optimizer, laid out beside
  // the candidate's sources.
  std::map<std::string, std::string> other_files;
  // The include folders searched (op.json's, resolved against `dir`, then the loader's), and the
  // headers that joined other_files from them, by package path, with the file each was read
  // from (npu/package_include_dirs.hpp).
  std::vector<std::filesystem::path> include_dirs;
  std::map<std::string, std::filesystem::path> joined_headers;
  // What loading assumed that op.json did not say (npu/accumulated_outputs.hpp), one sentence
  // each: every result of the package carries them as warnings.
  std::vector<std::string> assumptions;
};

// How load_op_package reads a package beyond what its op.json says.
struct package_load_options {
  // Include folders searched after op.json's (`aopt eval --include-dir`).
  std::vector<std::filesystem::path> include_dirs;
  // False where the package comes from someone the daemon does not trust with its file system
  // (an upload): an op.json naming include folders is then refused.
  bool allow_include_dirs = true;
  // Where the OpDef is read (compiled and run in the sandbox) when op.json leaves out tensors,
  // dtypes or shapes (npu/op_json_completion.hpp); empty: <temp>/aopt-opdef. read_op_def false
  // makes such an op.json an error instead.
  bool read_op_def = true;
  std::filesystem::path op_def_work_dir;
};

// A content hash of other_files (paths and texts), empty for a package without any: what a cache
// key of anything compiled from the package adds, so that the keys of four-file packages stay
// as they were.
std::string other_files_digest(const op_package& op);

// Whether `relative` (a path inside a package) names a C or C++ source or header by its extension.
bool is_package_source_file(const std::string& relative);

// Loads <dir>/op.json (completed from the package's OpDef and msOpST-style test case where it
// leaves tensors, dtypes or shapes out, npu/op_json_completion.hpp), the files it names and the
// package's other source files (anywhere under <dir> but in hidden folders), each opened without
// following links (read_file_beneath) and required to be UTF-8. Errors name the file and the
// reason; failed_precondition for a source file or folder that is a link (out of the package or
// not); invalid_argument for a package of more than 512 source files. Then joins the headers the
// sources include from the include folders (op.json's and `options`'); errors name the folder or
// header.
result<op_package> load_op_package(const std::filesystem::path& dir,
                                   const package_load_options& options = {});

// Every C/C++ source file of the package under `dir` by its relative path, read as
// load_op_package reads them (no op.json needed: what `aopt init` reads), with the headers they
// include from `include_dirs` joined as load_op_package joins them.
result<std::map<std::string, std::string>> load_package_sources(
    const std::filesystem::path& dir, const std::vector<std::filesystem::path>& include_dirs = {});

}  // namespace aopt::npu
