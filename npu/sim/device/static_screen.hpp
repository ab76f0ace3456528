// The static screen every candidate source passes before it is compiled (issue 17 item 3): a
// careful lexical check, not a C++ parser. Comments, string and character literals (raw strings
// too) are stripped first, so only code is judged, and every finding names its line.
//
// Refused:
//   * #include of anything but the AscendC/tiling headers, the operator's own tiling header and
//     a short list of C++ standard headers a kernel or tiling function needs (no I/O, no
//     process, no threads); #include_next, #import;
//   * inline assembly (asm, __asm, __asm__);
//   * system calls and their wrappers (open, fopen, write, mmap, ptrace, fork, exec*, _exit,
//     exit, atexit, signal, dlopen, ...), named anywhere except as a member (`x.write`);
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

}  // namespace aopt::npu
