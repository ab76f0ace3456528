#include "npu/sim/device/symbol_check.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/content_hash.hpp"
#include "npu/sim/device/file_stamp.hpp"
#include "npu/sim/device/process_environment.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

// nm's letters (binutils): upper case is global, lower case local, with these exceptions.
bool is_undefined(char type) {
  return type == 'U' || type == 'w' || type == 'v';
}
// Weak definitions and GNU unique objects (static locals of inline functions): one copy per
// link, the first the linker sees.
bool is_weak_definition(char type) {
  return type == 'W' || type == 'V' || type == 'u';
}
bool is_strong_global_definition(char type) {
  switch (type) {
    case 'A':
    case 'B':
    case 'C':
    case 'D':
    case 'G':
    case 'R':
    case 'S':
    case 'T':
    case 'i':  // an indirect function: resolved by code of the object's own at load time
      return true;
    default:
      return false;
  }
}

// The C and C++ libraries every candidate links dynamically.
constexpr const char* system_libraries[] = {"libc.so.6", "libm.so.6", "libstdc++.so",
                                            "libgcc_s.so.1"};

constexpr size_t nm_output_limit = 64ull << 20;

result<std::string> run_nm(subprocess_options run) {
  run.output_limit_bytes = nm_output_limit;
  auto ran = run_subprocess(run);
  if (!ran.ok()) return internal_error("cannot run nm: " + ran.error().message());
  if (!ran->succeeded() || ran->stdout_truncated) {
    return internal_error("nm failed (" + ran->describe() +
                          "): " + ran->stderr_text.substr(0, 400));
  }
  return std::move(ran->stdout_text);
}

// Where `compiler` finds `name` (-print-file-name): the path it prints, which is the name itself
// when the toolchain has no such file; an error when the compiler cannot be run.
result<std::string> compiler_file(const std::string& compiler, const std::string& name) {
  subprocess_options where;
  where.argv = {compiler, "-print-file-name=" + name};
  where.limits.wall_seconds = 60;
  auto found = run_subprocess(where);
  if (!found.ok() || !found->succeeded()) {
    return internal_error("cannot locate " + name + " with " + compiler);
  }
  std::string path = found->stdout_text;
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return path;
}

}  // namespace

std::vector<elf_symbol> parse_nm_posix(const std::string& text) {
  std::vector<elf_symbol> symbols;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    std::istringstream fields(line.substr(colon + 2));
    elf_symbol s;
    std::string type;
    if (!(fields >> s.name >> type) || type.size() != 1) continue;
    s.object = line.substr(0, colon);
    s.type = type[0];
    // Versioned dynamic symbols: "write@@GLIBC_2.2.5" is `write`.
    if (const size_t at = s.name.find('@'); at != std::string::npos && at > 0) s.name.resize(at);
    symbols.push_back(std::move(s));
  }
  return symbols;
}

void link_namespace::add(const std::vector<elf_symbol>& symbols, bool simulator_library) {
  for (const elf_symbol& s : symbols) {
    // A C name a system library defines weakly (glibc's `write`, an alias of `__write`) is no
    // inline copy of shared header code: a candidate's definition of it would still interpose.
    const bool c_name = !simulator_library && s.name.compare(0, 2, "_Z") != 0;
    if (is_strong_global_definition(s.type) || (c_name && is_weak_definition(s.type))) {
      strong.insert(s.name);
    } else if (is_weak_definition(s.type)) {
      weak.insert(s.name);
    } else if (simulator_library && is_undefined(s.type)) {
      referenced.insert(s.name);
    }
  }
}

bool symbol_allowance::admits(const std::string& name) const {
  for (const auto& n : names) {
    if (name == n) return true;
  }
  for (const auto& p : prefixes) {
    if (name.compare(0, p.size(), p) == 0) return true;
  }
  return false;
}

std::optional<std::string> forbidden_definition(const elf_symbol& symbol,
                                                const symbol_allowance& allowed,
                                                const link_namespace& trusted) {
  const std::string& name = symbol.name;
  if (is_strong_global_definition(symbol.type)) {
    if (allowed.admits(name)) return std::nullopt;
    // A C++ name (mangled) that no library of the link defines or calls is the operator's own:
    // a method of its tiling class defined out of line, a helper in its namespace. Nothing but
    // the candidate can reach it, so it replaces nothing. C names stay refused: the C library's
    // dynamic table is not all a process can bind.
    if (name.rfind("_Z", 0) == 0 && trusted.strong.count(name) == 0 &&
        trusted.weak.count(name) == 0 && trusted.referenced.count(name) == 0) {
      return std::nullopt;
    }
    const char* why = trusted.strong.count(name) != 0 || trusted.weak.count(name) != 0
                          ? "a name the simulator or the C/C++ libraries define"
                      : trusted.referenced.count(name) != 0 ? "a name the simulator calls"
                                                            : "not an entry point";
    std::string entries;
    for (const auto& n : allowed.names) entries += (entries.empty() ? "" : ", ") + n;
    for (const auto& p : allowed.prefixes) entries += (entries.empty() ? "" : ", ") + p + "...";
    return fmt::format(
        "{} defines `{}` with external linkage ({}): a candidate may define only its entry "
        "points ({}) and names with internal linkage (static, an anonymous namespace)",
        symbol.object, name, why, entries);
  }
  if (is_weak_definition(symbol.type)) {
    // A weak copy of an inline function or template instantiation the libraries also hold weak
    // (the same header code) is a normal COMDAT; one they define strongly or only call would be
    // replaced by the candidate's copy, which the linker sees first.
    if (allowed.admits(name)) return std::nullopt;
    if (trusted.strong.count(name) != 0 ||
        (trusted.referenced.count(name) != 0 && trusted.weak.count(name) == 0)) {
      return fmt::format(
          "{} defines `{}` (weak), which the simulator or the C/C++ libraries define or call: "
          "its copy would replace theirs",
          symbol.object, name);
    }
  }
  return std::nullopt;
}

symbol_allowance kernel_unit_allowance(const std::string& kernel_entry) {
  return {{kernel_entry, "_Z17aopt_kernel_entryPKPh"}, {}};
}

symbol_allowance host_unit_allowance(const std::string& tiling_func) {
  return {{"_Z17aopt_tiling_entryPN4gert13TilingContextE"},
          {fmt::format("_ZN8optiling{}{}E", tiling_func.size(), tiling_func)}};
}

symbol_checker::symbol_checker(std::string nm, std::string compiler,
                               std::vector<fs::path> simulator_libraries, compile_cache* cache)
    : nm_(std::move(nm)),
      compiler_(std::move(compiler)),
      libraries_(std::move(simulator_libraries)),
      cache_(cache) {}

std::vector<std::string> symbol_checker::nm_command(
    std::initializer_list<const char*> options) const {
  std::vector<std::string> argv = {nm_};
  argv.insert(argv.end(), plugin_args_.begin(), plugin_args_.end());
  argv.insert(argv.end(), options.begin(), options.end());
  return argv;
}

result<const link_namespace*> symbol_checker::trusted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (trusted_) return &*trusted_;
  // nm loads every linker plugin it finds unless it is given one: LLVM's gold plugin, which
  // Debian installs with libclang, costs each run 0.05 s and 50 MiB to load libLLVM. The
  // compiler's own LTO plugin, the one its objects would need, is small.
  if (result<std::string> plugin = compiler_file(compiler_, "liblto_plugin.so"); plugin.ok()) {
    std::error_code ec;
    if (!plugin->empty() && plugin->front() == '/' && fs::is_regular_file(*plugin, ec)) {
      plugin_args_ = {"--plugin", *plugin};
    }
  }
  std::vector<std::string> system_paths;
  for (const char* lib : system_libraries) {
    result<std::string> path = compiler_file(compiler_, lib);
    if (!path.ok()) return path.error();
    // An unknown name is printed back as it is: that library is not in this toolchain.
    if (path->find('/') == std::string::npos) continue;
    system_paths.push_back(std::move(path).value());
  }
  // The tables depend only on nm and the libraries it reads.
  std::string stamps = file_stamp(nm_);
  for (const auto& lib : libraries_) stamps += "\n" + file_stamp(lib);
  stamps += "\n--";
  for (const std::string& path : system_paths) stamps += "\n" + file_stamp(path);
  const std::string key = compile_cache::key_of({"link-namespace nm tables", stamps});
  std::optional<nlohmann::json> tables;
  if (cache_ != nullptr) {
    if (std::optional<std::string> kept = cache_->fetch_blob(key)) {
      nlohmann::json parsed = nlohmann::json::parse(*kept, nullptr, false);
      if (parsed.is_object() && parsed.value("simulator", nlohmann::json()).is_string() &&
          parsed.value("system", nlohmann::json()).is_string()) {
        tables = std::move(parsed);
      }
    }
  }
  if (!tables) {
    subprocess_options nm;
    nm.inherit_environment = false;
    nm.environment = sandboxed_process_environment();
    nm.limits.wall_seconds = 120;
    nm.argv = nm_command({"-P", "-A"});
    for (const auto& lib : libraries_) nm.argv.push_back(lib.string());
    result<std::string> simulator = run_nm(nm);
    if (!simulator.ok()) return simulator.error();
    nm.argv = nm_command({"-P", "-A", "-D", "--defined-only"});
    nm.argv.insert(nm.argv.end(), system_paths.begin(), system_paths.end());
    result<std::string> system = run_nm(nm);
    if (!system.ok()) return system.error();
    tables = nlohmann::json{{"simulator", *simulator}, {"system", *system}};
    // A cache that cannot keep it costs the next checker the two nm runs, nothing else.
    if (cache_ != nullptr) (void)cache_->store_blob(key, tables->dump());
  }
  link_namespace names;
  names.add(parse_nm_posix((*tables)["simulator"].get<std::string>()), true);
  names.add(parse_nm_posix((*tables)["system"].get<std::string>()), false);
  trusted_ = std::move(names);
  return &*trusted_;
}

result<std::string> symbol_checker::check(const std::vector<object>& objects,
                                          subprocess_options sandboxed) const {
  result<const link_namespace*> names = trusted();
  if (!names.ok()) return names.error();
  // The verdict depends on the objects' bytes and allowances only (the libraries are fixed for a
  // checker). An object that cannot be read here is left to nm, which says why.
  std::vector<std::string> parts;
  for (const object& o : objects) {
    const fs::path path = fs::path(sandboxed.working_dir) / o.path;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in) {
      parts.clear();
      break;
    }
    parts.push_back(o.path);
    parts.push_back(content_hash({bytes.str()}));
    for (const auto& n : o.allowed.names) parts.push_back("=" + n);
    for (const auto& p : o.allowed.prefixes) parts.push_back("*" + p);
  }
  const std::string key = parts.empty() ? std::string() : content_hash(parts);
  if (!key.empty()) {
    const std::lock_guard lock(clean_mutex_);
    if (clean_.find(key) != nullptr) return std::string();
  }
  {
    const std::lock_guard lock(mutex_);
    sandboxed.argv = nm_command({"-P", "-A", "--defined-only"});
  }
  for (const object& o : objects) sandboxed.argv.push_back(o.path);
  result<std::string> listed = run_nm(sandboxed);
  if (!listed.ok()) return listed.error();
  for (const elf_symbol& s : parse_nm_posix(*listed)) {
    for (const object& o : objects) {
      if (o.path != s.object) continue;
      if (auto why = forbidden_definition(s, o.allowed, **names)) return *why;
    }
  }
  if (!key.empty()) {
    const std::lock_guard lock(clean_mutex_);
    clean_.put(key, true, key.size());
  }
  return std::string();
}

}  // namespace aopt::npu
