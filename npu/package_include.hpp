// How a quoted #include of an operator package's source resolves to another file of the package
// (packages as teams lay them out, issue 34): the way the compiler searches for it in the
// candidate's build directory, which holds the package's files in the package's tree.
//
// A quoted include "p" in the file `including` is looked for, in this order, in the including
// file's folder, the package root, op_host/ and op_kernel/ (the build passes the last three as
// -iquote). A path that climbs ("../op_host/x_tiling.h") is fine while it stays in the package;
// one that leaves it, or an absolute path, resolves to nothing here (the callers refuse it).
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aopt::npu {

// The folders (relative to the package root, "" for the root) the compiler searches for a quoted
// include after the including file's own folder: what the build passes as -iquote.
const std::vector<std::string>& package_quote_dirs();

// The package file (its path relative to the package root) that `#include "path"` in the
// package file `including` names, if there is one in `package_files`; nothing for an absolute
// path or one that resolves out of the package before a package file is found.
std::optional<std::string> resolve_package_include(const std::string& including,
                                                   const std::string& path,
                                                   const std::set<std::string>& package_files);

}  // namespace aopt::npu
