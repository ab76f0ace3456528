// The static screen every candidate source passes before it is compiled (issue 17 item 3): a
// careful lexical check, not a C++ parser. Comments, string and character literals (raw strings
// too) are stripped first, so only code is judged, and every finding names its line.
//
// Refused:
//   * #include of anything but the AscendC/tiling headers (any header of the shim but its
//     internals), the operator's own tiling header, a file of the package the quoted include
//     resolves to (npu/package_include.hpp) and a short list of C++ standard headers a kernel or
//     tiling function needs (no I/O, no process, no threads); #include_next, #import. A quoted
//     include that is neither the package's nor the shim's is reported as missing from both (a
//     repository-private helper the package must carry);
//   * inline assembly (asm, __asm, __asm__);
//   * system calls and their wrappers (open, fopen, write, mmap, ptrace, fork, exec*, _exit,
//     exit, atexit, signal, dlopen, ...), named anywhere except as a member (`x.write`);
//     `syscall` only as syscall(SYS_gettid) and the like: the identity queries CANN's host log
//     helpers put in a line's prefix (getpid too) are allowed, by an allow-list of numbers;
//   * raw-pointer access to the simulated memories outside the tensor API (GetPhyAddr);
//   * static constructors/destructors: __attribute__((constructor/destructor/...)), and
//     namespace-scope objects initialised by a call or of a class with a user-written
//     constructor or destructor;
//   * references to the simulator's internals (identifiers starting with "aopt"), token pasting
//     (`##` can assemble any of the above from harmless pieces).
//
// The screen is a first line only: the trusted checker holds even when a candidate passes it.
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

  // "op_kernel/add.cpp:12: `_exit` is forbidden: a system call or its wrapper"
  std::string message() const;
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

// Whether the code of `text` (comments and literals aside) names the identifier `name`.
bool names_identifier(const std::string& text, const std::string& name);

// The headers under the shim's include folder by include path, without its internals (aopt/,
// aopt_sim/): what screen_includes::shim_headers holds.
std::set<std::string> shim_header_set(const std::string& include_dir);

}  // namespace aopt::npu
