// The AST screen (issue 30 item 3): every candidate's kernel and tiling program are parsed with
// libclang, as the compiler will compile them (the generated kernel and host units, the same
// include paths and the shim), and the package's own code is judged against allow-lists. A list
// of forbidden names is not the screen: whatever is not allowed is refused.
//
// In the package's own files (never the shim's or the system's):
//   * every reference (a name, a member, a call, a type or template, a namespace, an overload
//     set, an unresolved name in a template) resolves to
//       - a declaration of the package itself, which is defined in the unit (a declaration the
//         package leaves undefined would bind to a library's symbol: `extern "C" int creat64()`),
//       - the shim's public API: not inside a namespace `detail` or `aopt*`, not named `aopt*`,
//         not a private member, not GetPhyAddr (the composite internals and every other
//         simulator internal are private this way), or
//       - a standard-library or C-library name on the allow-lists (screen_allow_lists.hpp), or an
//         allowed compiler builtin; syscall only as syscall(SYS_gettid) or syscall(SYS_getpid);
//   * no inline assembly (statements, file-scope asm, asm labels), no attribute off the
//     allow-list (constructor, section, alias... in any spelling, digraphs included), no
//     directive or pragma off the allow-list, no thread_local;
//   * every namespace-scope or static variable (static data members, variable templates) is
//     constexpr or constant-initialised, and has no destructor written by the package: dynamic
//     initialisation would run the package's code before the kernel's entry;
//   * every file a package file includes is a package file, a public shim header or an allowed
//     standard header (the include graph after preprocessing, so a computed include is judged
//     by what it includes).
// Code that a shim macro writes into the package's file (GET_TILING_DATA,
// REGISTER_TILING_DATA_CLASS, OP_ADD...) is the shim's: a reference whose location is the name
// of an expanded shim macro is not the candidate's. Macro arguments are the candidate's.
//
// A unit libclang cannot parse is not judged: the finding says so (screen_finding::unjudged),
// and the caller refuses the candidate only if the compiler accepts what the screen could not
// read, so a typo stays a compile error with the compiler's diagnostics.
//
// Parsing hostile text: the token screen (static_screen.hpp) runs first, so libclang never opens
// a header the include allow-list refuses; the unit's files are written to a private folder of
// the screen's, laid out as the build lays them out; the parse and the walk run in a parser
// process (screen_parser_pool.hpp) under `limits`, past which the unit is refused as code the
// screen cannot bound.
//
// Cost: the shim's kernel and host headers are precompiled once per screen (a PCH built on the
// first use), the two units are parsed at once by parser processes kept between units, and
// verdicts are cached by the text of the files each unit read: a tiling-only change re-parses the
// host unit only. The simulator runs the
// screen next to the (sandboxed) build and awaits it before anything built runs, so a screen
// shorter than the compile adds no wall time (bench_screen_cost measures it).
//
// Thread-safety: screen() may be called concurrently.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "npu/op_package.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/device/screen_parser_pool.hpp"
#include "npu/sim/device/static_screen.hpp"

namespace aopt::npu {

class ast_screen {
 public:
  // `toolchain` gives the shim's include folder and the candidate flags; the PCHs and the units'
  // files are written to a private directory under <work_dir>/screen, removed with the screen.
  ast_screen(const sim_toolchain& toolchain, const std::filesystem::path& work_dir,
             screen_parser_limits limits = {});
  ~ast_screen();
  ast_screen(const ast_screen&) = delete;
  ast_screen& operator=(const ast_screen&) = delete;

  // The first construct of the package's own code (with `tiling_source` as the tiling program
  // and `kernel_source` as the kernel; null: no kernel unit, as a tiling probe builds none) that
  // is not allowed, or nothing.
  std::optional<screen_finding> screen(const op_package& op, const std::string& tiling_source,
                                       const std::string* kernel_source) const;

  // How many units were parsed (not found in the verdict cache) so far, and how many parser
  // processes parsed them.
  uint64_t units_parsed() const;
  uint64_t parser_processes_started() const;

  // Writes the screen's PCHs of the shim and the names it learns from them into `dir`, which the
  // build makes <toolchain.pch_dir>/screen: a screen then loads them instead of parsing the shim
  // (about 2 s of CPU per process), after checking once that every header they were built from is
  // unchanged.
  static status prebuild(const sim_toolchain& toolchain, const std::filesystem::path& dir);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace aopt::npu
