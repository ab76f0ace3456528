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

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aopt::npu {

// One #include-like directive of a source (#include, #include_next, #import or #embed, with
// '#' spelled as itself or as the digraph "%:"), read line by line as the preprocessor reads
// directives: a computed include (#include MACRO) has an empty path.
struct include_directive {
  size_t line = 0;        // 1-based
  std::string directive;  // "include", "include_next", "import" or "embed"
  bool angled = false;    // <path> rather than "path"
  std::string path;
};

// Every include directive of `source`, in order.
std::vector<include_directive> include_directives(const std::string& source);

// The folders (relative to the package root, "" for the root) the compiler searches for a quoted
// include after the including file's own folder: what the build passes as -iquote.
const std::vector<std::string>& package_quote_dirs();

// The package file (its path relative to the package root) that `#include "path"` in the
// package file `including` names, if there is one in `package_files`; nothing for an absolute
// path or one that resolves out of the package before a package file is found.
std::optional<std::string> resolve_package_include(const std::string& including,
                                                   const std::string& path,
                                                   const std::set<std::string>& package_files);

// The files of a package (`files`: path -> text) that the files `roots` reach through their
// includes, directly or through each other, the roots among them: all a build of the roots can
// read. A quoted include resolves as resolve_package_include says, an angled one from the package
// root; a directive inside a false #if counts too (a superset is safe, a file missing is not).
// Nothing when a reached file has a computed include (#include MACRO): only the preprocessor
// knows which file that names, so every file may be reached.
std::optional<std::set<std::string>> reached_package_files(
    const std::map<std::string, std::string>& files, const std::vector<std::string>& roots);

}  // namespace aopt::npu
