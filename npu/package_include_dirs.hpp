// Helper headers a package includes from its repository (packages as teams lay them out, issue
// 34). An operator in a real repository includes headers it does not carry: `"csrc/utils.h"`
// from the repository's include folder, `"common/op_host/common.h"` from a folder shared by its
// operators. Given those folders (op.json's `include_dirs`, `aopt eval --include-dir`), the
// headers the package's sources include, and the headers those include, join the package: they
// are read once at load time, then screened, hashed and laid out in the candidate's build like
// the package's own files, so nothing outside the package is read while a candidate builds.
//
// A directive is looked for as the compiler would find it in the candidate's build tree: a quoted
// path beside the including file, then from the package root; an angled path from the package
// root (the build searches the root for angled paths after the shim and the system). A path the
// package already resolves, an absolute one and one that climbs with ".." are left alone (the
// screen judges them). Each include folder is searched in order; a file in it is read without
// following links, and must be UTF-8.
//
// An include folder may be a pattern (`kernels/*/op_kernel`, glob(3) syntax): it stands for every
// folder it matches, in sorted order, as a build that gathers all of a repository's kernel
// folders into one (DrivingSDK's: `"common.h"` of bev_pool is kernels/common/op_kernel/common.h)
// sees them. A folder found first holds the header, as with folders named one by one; a pattern
// that matches no folder, or one through a symbolic link, is an error.
//
// Point include folders at the repository's own helper folders, never at CANN's include folder:
// a joined copy of a CANN header would be screened as the operator's code.
//
// Thread-safety: pure functions over their arguments and the file system.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::npu {

// The headers that joined, by their path in the package, each with the file it was read from.
struct joined_headers {
  std::map<std::string, std::string> files;              // package path -> text
  std::map<std::string, std::filesystem::path> sources;  // package path -> file read
};

// Whether an include folder is a glob(3) pattern (holds *, ? or [).
bool is_include_pattern(const std::filesystem::path& dir);

// `dirs` with each pattern replaced by the folders it matches (sorted). Errors: not_found for a
// pattern that matches no folder, failed_precondition for a match reached through a link.
result<std::vector<std::filesystem::path>> expand_include_dirs(
    const std::vector<std::filesystem::path>& dirs);

// The headers `package_files` (every source of the package by its relative path) include,
// transitively, that `include_dirs` hold and the package does not. Errors: not_found naming an
// include folder that is not a folder; invalid_argument for a header that is not UTF-8 text or
// larger than `max_file_bytes`, or when the package would exceed `max_files` source files;
// failed_precondition for a header reached through a symbolic link.
result<joined_headers> join_include_dirs(const std::map<std::string, std::string>& package_files,
                                         const std::vector<std::filesystem::path>& include_dirs,
                                         uint64_t max_file_bytes, size_t max_files);

}  // namespace aopt::npu
