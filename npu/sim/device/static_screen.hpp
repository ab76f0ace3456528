// The token screen of a candidate's includes (issue 17 item 3, issue 30 item 3): a careful lexical
// check of the #include lines, run before anything parses the source. Comments, string and
// character literals (raw strings too) are stripped first, a digraph `%:` is the `#` it stands
// for, and every finding names its line.
//
// Refused: #include of anything but the AscendC/tiling headers (any header of the shim but its
// internals), the operator's own tiling header, a file of the package the quoted include
// resolves to (npu/package_include.hpp) and a short list of C++ standard headers a kernel or
// tiling function needs (no I/O, no process, no threads); a computed include (#include MACRO);
// #include_next, #import. A quoted include that is neither the package's nor the shim's is
// reported as missing from both (a repository-private helper the package must carry).
//
// It is an allow-list and only the gate before the AST screen (ast_screen.hpp), which judges
// what the code names and does: libclang then opens no header this screen refuses. The trusted
// checker holds even when a candidate passes both.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace aopt::npu {

struct screen_finding {
  std::string file;
  uint32_t line = 0;
  std::string construct;  // the offending token or header, e.g. "_exit", "<fstream>"
  std::string reason;     // why it is refused
  // The AST screen could not parse the code (ast_screen.hpp): the candidate is refused only if
  // the compiler accepts it; otherwise the compiler's error is the verdict.
  bool unjudged = false;
  // The AST screen's parse went past its bounds (CPU, memory or wall time): a template or macro
  // explosion no honest unit comes near. Refused as such, not as a forbidden construct.
  bool past_bounds = false;

  // "op_kernel/add.cpp:12: `_exit` is forbidden: a system call or its wrapper"
  std::string message() const;
  // The evaluation's error_kind for this refusal: "screen_limit" past the bounds, else
  // "forbidden".
  const char* error_kind() const { return past_bounds ? "screen_limit" : "forbidden"; }
};

// The first forbidden construct of `text` (the source file `file`), or nothing. `own_header` is
// the operator's tiling header as the package names it ("op_host/add_custom_tiling.h"); an
// #include of it (by that path or its file name) is allowed.
std::optional<screen_finding> screen_source(const std::string& file, const std::string& text,
                                            const std::string& own_header);

// What a source of a package may include besides the standard headers.
struct screen_includes {
  std::string own_header;  // as above
  std::set<std::string>
      package_files;                   // the package's files (candidate_builder's package_file_set)
  std::set<std::string> shim_headers;  // the shim's headers by include path ("tiling/tiling_api.h")
};

std::optional<screen_finding> screen_source(const std::string& file, const std::string& text,
                                            const screen_includes& includes);

// Whether `path`, a header the preprocessor resolved, is one of the standard headers a package
// may include ("/usr/include/c++/12/vector" is <vector>).
bool is_allowed_std_header_path(const std::string& path);

// Whether the code of `text` (comments and literals aside) names the identifier `name`.
bool names_identifier(const std::string& text, const std::string& name);

// The headers under the shim's include folder by include path, without its internals (aopt/,
// aopt_sim/): what screen_includes::shim_headers holds.
std::set<std::string> shim_header_set(const std::string& include_dir);

}  // namespace aopt::npu
