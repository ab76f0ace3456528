// The link allow-list (issue 30 item 3): before a candidate's objects are linked with the
// simulator, their symbol tables (nm) say what they define. A candidate unit may define with
// external linkage only its entry points (the kernel entry and aopt_kernel_entry, or
// optiling::<tiling function> and aopt_tiling_entry), and C++ (mangled) names that no library of
// the link defines or references (the operator's own classes and helpers: nothing but the
// candidate can reach them); everything else it defines must have internal linkage, or be a weak
// (COMDAT) copy of an inline function or template instantiation that no library of the link
// defines strongly and that the simulator does not merely reference.
// Anything else (a runtime or shim function, a libc or libstdc++ name, an `extern "C"` definition
// with the runtime's mangled name) is compile_error "forbidden", naming the symbol: defined
// before the libraries in the link, it would replace theirs.
//
// The names the link's libraries define come from nm over the simulator's static libraries and
// the dynamic symbol tables of the C and C++ libraries, read once per checker, and kept in the
// object cache under the stamps of nm and those libraries (every device of every process used to
// run both nm calls again: about 0.3 s of CPU each time). nm reads the
// candidate's objects in the compiler's sandbox: the objects are built from hostile sources.
// A checker remembers the objects it found clean, by their bytes and allowances: the same objects
// again (a cached host object under another kernel, a tiling that differs only in lifted values)
// are not read by nm again.
//
// Thread-safety: check() may be called concurrently.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/status.hpp"
#include "base/subprocess.hpp"
#include "npu/sim/device/bounded_cache.hpp"
#include "npu/sim/device/compile_cache.hpp"

namespace aopt::npu {

// One line of `nm -P -A`: the object it is in, the symbol's name (without a @version) and nm's
// type letter (T text, W weak, t local text, U undefined, ...).
struct elf_symbol {
  std::string object;
  std::string name;
  char type = '?';
};

// `nm -P -A` output (archives print "archive[member]: name type [value size]"). Lines that are
// not symbols are skipped.
std::vector<elf_symbol> parse_nm_posix(const std::string& text);

// The names the trusted libraries of a candidate's link know.
struct link_namespace {
  // Defined non-weak by some library, or a C name a system library defines at all.
  std::unordered_set<std::string> strong;
  std::unordered_set<std::string> weak;        // defined, weak only
  std::unordered_set<std::string> referenced;  // undefined in the simulator's libraries
  void add(const std::vector<elf_symbol>& symbols, bool simulator_library);
};

// What one candidate object may define with external linkage.
struct symbol_allowance {
  std::vector<std::string> names;
  std::vector<std::string> prefixes;  // e.g. "_ZN8optiling10TilingFuncE" (any parameters)
  bool admits(const std::string& name) const;
};

// Why `symbol` may not be in a candidate object, or nothing.
std::optional<std::string> forbidden_definition(const elf_symbol& symbol,
                                                const symbol_allowance& allowed,
                                                const link_namespace& trusted);

// What aopt's generated units let the kernel unit define: the operator's `extern "C"` entry and
// aopt_kernel_entry; and the host unit: optiling::<tiling_func> and aopt_tiling_entry.
symbol_allowance kernel_unit_allowance(const std::string& kernel_entry);
symbol_allowance host_unit_allowance(const std::string& tiling_func);

class symbol_checker {
 public:
  // `simulator_libraries`: the static libraries linked after the candidate's objects.
  // `compiler` finds the C and C++ libraries it links (-print-file-name).
  // `cache`, when given, keeps the libraries' nm tables between checkers and processes.
  symbol_checker(std::string nm, std::string compiler,
                 std::vector<std::filesystem::path> simulator_libraries,
                 compile_cache* cache = nullptr);

  struct object {
    std::string path;  // as nm is given it (relative to the run's working dir)
    symbol_allowance allowed;
  };
  // The first forbidden definition of `objects` ("obj/host.o defines `write` ..."), empty when
  // there is none. `sandboxed` is the compiler's run (working dir, sandbox, limits); an error is
  // the machine's (nm missing or failing).
  result<std::string> check(const std::vector<object>& objects, subprocess_options sandboxed) const;

 private:
  result<const link_namespace*> trusted() const;
  // nm, the plugin it is given, and `options`. REQUIRES: mutex_ held.
  std::vector<std::string> nm_command(std::initializer_list<const char*> options) const;

  std::string nm_;
  std::string compiler_;
  std::vector<std::filesystem::path> libraries_;
  compile_cache* cache_;
  mutable std::mutex mutex_;
  mutable std::optional<link_namespace> trusted_;
  mutable std::vector<std::string> plugin_args_;  // --plugin <the compiler's>, set with trusted_
  mutable std::mutex clean_mutex_;
  mutable bounded_cache<bool> clean_{1u << 20};  // keys of object sets found clean
};

}  // namespace aopt::npu
