// Builds one candidate (tiling program T, kernel K) of an operator package into an executable
// that links the simulator's driver, in a scratch directory.
//
// Translation units (each compiled with the candidate flags, the shim's precompiled
// kernel_operator.h first, and cached by content in a compile_cache):
//   kernel     aopt_kernel.cpp: #includes the kernel source (compiled with `-include <tiling
//              header>` and -DDTYPE_<NAME>=<c type> per tensor) and defines aopt_kernel_entry,
//              which calls the operator's extern "C" entry with the GM addresses.
//   host       aopt_host.cpp: #includes the tiling program and defines aopt_tiling_entry, which
//              calls optiling::<tiling_func>.
//   reference  reference.cpp as it is.
// The units missing from the cache compile in parallel (at most `parallel_compiles` at once);
// then kernel and host link with the driver into <scratch>/candidate (or, when the same objects
// were linked before, the cached executable is fetched: a comment or an unchanged unit relinks
// nothing). The reference is built by a build of its own (build_limits::reference_only) in a
// scratch directory of its own, linked alone with its main into <scratch>/reference: the
// candidate process never holds the reference or the expected outputs (issue 17) and never
// shares a directory with them (issue 30).
//
// The compiler reads candidate sources, so it runs as untrusted as the candidate: an empty,
// explicit environment, the sandbox (base/sandbox.hpp: no privileges, no network, the file
// system read-only except the scratch dir and limited to the system, the shim, the PCH and the
// simulator libraries; its passes die with it), a CPU and a wall-clock limit. A source with an
// absolute or parent-relative #include is refused before compiling (compile_error "forbidden");
// the sandbox refuses any other path out (`#include MACRO`, a FIFO) at open time. A quoted
// include that climbs to another file of the package ("../op_host/x_tiling.h") is the package's
// own; the package's other files (op_package::other_files) are laid out beside the sources and
// the package root, op_host/ and op_kernel/ are on the quote-include path. Before linking, the
// kernel and host objects may define only their entry points and names of internal linkage
// (symbol_check.hpp; compile_error "forbidden" naming the symbol).
// A failure that the state of the machine explains (a full disk, no descriptors, an unusable
// scratch dir; check_scratch_usable) is infra_error, never the candidate's compile_error.
//
// Thread-safety: build() may be called concurrently (each call uses its own scratch dir).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/cancellation.hpp"
#include "base/sandbox.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/compile_cache.hpp"
#include "npu/sim/device/symbol_check.hpp"

namespace aopt::npu {

// Where the compiler, the shim and the prebuilt simulator libraries are.
struct sim_toolchain {
  std::string compiler;                      // g++
  std::vector<std::string> candidate_flags;  // must equal the flags the PCH was built with
  // The tiling program's unit: the candidate flags but for the optimisation level, which keeps
  // the host PCH valid (npu/sim/CMakeLists.txt says why).
  std::vector<std::string> tiling_flags;
  std::vector<std::string> link_flags;  // e.g. -fuse-ld=gold
  std::string nm = "/usr/bin/nm";       // reads candidate objects (symbol_check.hpp)
  std::filesystem::path include_dir;    // the shim headers
  std::filesystem::path pch_dir;        // kernel_operator.h.gch, host/aopt_sim/host_api.h.gch
  std::filesystem::path lib_dir;        // libaopt_simdriver.a, libaopt_simprobe.a, libaopt_simrt.a,
                                        // libaopt_protocol.a
  std::filesystem::path judge;          // the judge executable (judge_process.hpp)
};

// The toolchain of this build of aopt (compile definitions from npu/sim/CMakeLists.txt).
sim_toolchain default_sim_toolchain();

// The compile flags of the generated kernel and host units. Every macro the units need is
// defined in their generated source, after the precompiled header the last flags force-include:
// a -D here would make GCC drop the precompiled header (and triple the compile time).
// The host unit (the tiling program) is compiled with the toolchain's tiling flags; the
// operator's reference, which computes every expected output, with the candidate flags and the
// same host headers.
std::vector<std::string> kernel_unit_flags(const sim_toolchain& t);
std::vector<std::string> host_unit_flags(const sim_toolchain& t);
std::vector<std::string> reference_unit_flags(const sim_toolchain& t);

// The simulator's libraries as every candidate-side link names them, after the candidate's
// objects and the executable's main library: the runtime as a whole archive, so that every
// definition of its own is in the link and an object of the candidate's defining one of its names
// fails as a duplicate definition instead of replacing it (issue 30: the runtime cannot be
// interposed, whatever symbol_check.hpp, which refuses such a name first, might miss); then the
// protocol library, whose members the runtime calls (as an ordinary archive: the one that reads
// op.json also calls aopt's base library, which a candidate does not link); then glibc's vector
// math, which the runtime's element-wise loops call (runtime/vector_libm.hpp).
std::vector<std::string> simulator_link_libraries(const std::filesystem::path& runtime_lib,
                                                  const std::filesystem::path& protocol_lib);

// The generated translation units the package's sources are compiled in (the kernel unit
// aopt_kernel.cpp, the host unit aopt_host.cpp; see the top of this file): what the AST screen
// parses, so that it judges exactly what the compiler compiles.
std::string kernel_unit_text(const op_spec& spec);
std::string host_unit_text(const op_spec& spec);
// The symbol the kernel unit gives the operator's kernel entry: never the entry's own name, which
// may be a C library function's the shim's headers declare (a kernel named hypot, exp or round
// would conflict with it, while CANN's device compiler declares no such function).
std::string kernel_entry_symbol(const op_spec& spec);
inline constexpr const char* kernel_unit_file = "aopt_kernel.cpp";
inline constexpr const char* host_unit_file = "aopt_host.cpp";

// The C++ type a kernel sees for a dtype (DTYPE_<NAME> macros): half, float, bfloat16_t, ...
const char* kernel_c_type(dtype t);

struct build_outcome {
  // cancelled: build_limits::cancel was raised; the build stopped where it was and made nothing.
  enum class kind { ok, compile_error, infra_error, cancelled };
  kind result = kind::infra_error;
  std::filesystem::path executable;
  std::filesystem::path reference_executable;  // build_limits::reference_only (then no executable)
  std::filesystem::path probe_executable;      // build_limits::probe_only (then no executable)
  // compile_error: "compile", "link", "compile_timeout", "forbidden"
  std::string error_kind;
  std::string message;                   // one line: the first compiler error, or what failed
  std::vector<std::string> diagnostics;  // trimmed compiler output, paths relative
  // compile_error "compile" or "compile_timeout": the generated unit that failed
  // (kernel_unit_file, host_unit_file or the reference's source), the kernel's when both did.
  std::string failed_unit;
  double seconds = 0;  // wall time of compiling and linking
  // Its parts: the compiler runs, the symbol check, the links.
  double compile_seconds = 0;
  double symbols_seconds = 0;
  double link_seconds = 0;
  uint32_t units_compiled = 0;
  uint32_t units_cached = 0;
  uint32_t links_cached = 0;  // executables fetched because their objects were linked before
};

struct build_limits {
  double compile_timeout_seconds = 120;  // per compiler or linker run
  uint64_t address_space_bytes = 0;      // RLIMIT_AS of the compiler (0: inherited)
  uint32_t parallel_compiles = 2;
  // Texts (the daemon's secrets) never returned in diagnostics: replaced by "[redacted]".
  std::vector<std::string> redact;
  // Build only the reference unit and link it with the reference's main
  // (driver_reference_main.cpp) into <scratch>/reference: no kernel, no tiling program. The
  // reference never shares a directory with a candidate (issue 30).
  bool reference_only = false;
  // Build only the host unit and link it with the tiling probe's main (tiling_probe_main.cpp)
  // into <scratch>/probe: no kernel, no reference (issue 16).
  bool probe_only = false;
  // The identity compilers and nm run as (base/sandbox.hpp untrusted_identity()): the scratch
  // dir is handed over to it once the sources are written.
  std::optional<sandbox_identity> identity;
  // Compile kernel and host afresh, without reading or writing the object cache (the trusted
  // reference still comes from it).
  bool cold = false;
  // Raised by whoever has already decided the build's verdict (the static screen refusing the
  // code, sim_device.hpp): the running compiler or linker is killed, nothing more starts, and the
  // outcome is kind::cancelled. Null: the build runs to its end. Must outlive build().
  const cancellation* cancel = nullptr;
};

class candidate_builder {
 public:
  // `cache` must outlive the builder.
  candidate_builder(sim_toolchain toolchain, compile_cache& cache);

  // Writes the sources into `scratch` (mirroring the package layout) and builds
  // <scratch>/candidate.
  build_outcome build(const op_package& op, const std::string& tiling_source,
                      const std::string& kernel_source, const std::filesystem::path& scratch,
                      const build_limits& limits) const;

  // Builds <scratch>/opdef (build_outcome::executable): the package's host sources `hosts`
  // (paths among `files`, the package's files by path) with a main that prints, as JSON, what
  // their OpDefs declare (aopt_sim/op_def_records.h), for `aopt init`. Compiled as the
  // candidates are (sandboxed, screened for escaping includes), not cached.
  build_outcome build_opdef_reader(const std::map<std::string, std::string>& files,
                                   const std::vector<std::string>& hosts,
                                   const std::filesystem::path& scratch,
                                   const build_limits& limits) const;

  // What build_opdef_reader(files, hosts, ...) builds depends on, as a compile_cache key: the
  // toolchain (compiler, flags, shim headers, the simulator libraries it links) and the files.
  // read_op_defs caches the OpDefs read under it, so that loading a package again (or another
  // op.json of it) does not compile its host sources again.
  std::string opdef_reader_key(const std::map<std::string, std::string>& files,
                               const std::vector<std::string>& hosts) const;

  const sim_toolchain& toolchain() const { return toolchain_; }

 private:
  sim_toolchain toolchain_;
  std::string fingerprint_;  // what else an object depends on: compiler, PCH, shim headers
  compile_cache& cache_;
  symbol_checker symbols_;
};

// The first #include (or #include_next, #import, #embed) in `source` that names an absolute
// path or climbs with "..": "line 3: #include \"/etc/shadow\"", or empty. A quoted path that
// climbs is fine when it resolves to one of `package_files` from the package file `including`
// (npu/package_include.hpp: "../op_host/x_tiling.h" from op_kernel/x.cpp).
std::string find_escaping_include(const std::string& source, const std::string& including = "",
                                  const std::set<std::string>& package_files = {});

// The paths of the package's files a candidate may include (tiling header, host, kernel and
// op_package::other_files; never the reference).
std::set<std::string> package_file_set(const op_package& op);

// Keeps the part of compiler output that explains a failure: from a few lines before the first
// "error:" on, at most `max_lines` lines of at most 400 bytes, with `strip_prefixes` removed
// from paths.
std::vector<std::string> trim_diagnostics(const std::string& output,
                                          const std::vector<std::string>& strip_prefixes,
                                          size_t max_lines = 40);

}  // namespace aopt::npu
