#include "npu/sim/device/opdef_reader.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"
#include "npu/op_package.hpp"
#include "npu/optest_case.hpp"
#include "npu/protocol/json_fields.hpp"
#include "npu/sim/device/process_environment.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr double opdef_compile_seconds = 120;
constexpr double opdef_run_seconds = 20;
// The OpDef JSON of a package is a few kilobytes: this holds thousands of packages' reads.
constexpr uint64_t opdef_cache_bytes = 64ull << 20;

// Whether a header's text registers a tiling class for `op_type`:
// REGISTER_TILING_DATA_CLASS(OpType, TilingDataClass).
bool registers_tiling_of(const std::string& text, const std::string& op_type) {
  if (op_type.empty() || text.find("REGISTER_TILING_DATA_CLASS") == std::string::npos) return false;
  for (char c : op_type)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  const std::regex registration("REGISTER_TILING_DATA_CLASS\\s*\\(\\s*" + op_type + "\\s*,");
  return std::regex_search(text, registration);
}

std::string folded(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// CANN's kernel name for an op type: "BEVPoolV3" -> "bev_pool_v3", "AddCustom" -> "add_custom".
std::string snake_case(const std::string& op_type) {
  std::string out;
  for (size_t i = 0; i < op_type.size(); ++i) {
    const char c = op_type[i];
    const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    if (upper && i > 0) {
      const bool prev_lower = std::islower(static_cast<unsigned char>(op_type[i - 1])) != 0 ||
                              std::isdigit(static_cast<unsigned char>(op_type[i - 1])) != 0;
      const bool next_lower =
          i + 1 < op_type.size() && std::islower(static_cast<unsigned char>(op_type[i + 1])) != 0;
      const bool prev_upper = std::isupper(static_cast<unsigned char>(op_type[i - 1])) != 0;
      if (prev_lower || (prev_upper && next_lower)) out += '_';
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// An OpDef's op type; "" when it has none (or one of another type: it then matches no name).
std::string op_type_of(const nlohmann::json& def) {
  std::string type;
  if (!json_fields(def, "").read("op_type", type).ok()) return "";
  return type;
}

// Fills shapes (and value ranges, dtypes) of `tensors` from a case's descriptions, in order.
void apply_test_case(nlohmann::json& tensors, const nlohmann::json& descs, bool inputs,
                     const std::string& source) {
  if (!descs.is_array()) return;
  for (size_t i = 0; i < tensors.size() && i < descs.size(); ++i) {
    const nlohmann::json& d = descs[i];
    const nlohmann::json shape = optest_shape(d);
    if (shape.is_null()) continue;
    tensors[i]["shape"] = shape;
    if (std::string dtype = optest_dtype(d); !dtype.empty()) tensors[i]["dtype"] = dtype;
    std::string note = "shape from " + source;
    if (inputs) {
      if (const nlohmann::json range = optest_range(d); !range.is_null()) {
        tensors[i]["range"] = range;
        note += " (value range too)";
      } else {
        note += "; set the value range";
      }
    }
    tensors[i]["description"] = note;
  }
}

}  // namespace

namespace {

// What the OpDef reader compiles: the package's sources, and its host sources among them.
struct opdef_sources {
  std::map<std::string, std::string> files;
  std::vector<std::string> hosts;
};

result<opdef_sources> read_opdef_sources(const fs::path& package_dir,
                                         const std::vector<fs::path>& include_dirs) {
  auto files = load_package_sources(package_dir, include_dirs);
  if (!files.ok()) return files.error();
  opdef_sources out;
  out.files = std::move(files).value();
  for (const auto& [path, text] : out.files) {
    if (path.rfind("op_host/", 0) == 0 && path.find('/', 8) == std::string::npos &&
        fs::path(path).extension() == ".cpp") {
      out.hosts.push_back(path);
    }
  }
  if (out.hosts.empty()) {
    return invalid_argument(package_dir.string() + ": no host sources (op_host/*.cpp)");
  }
  return out;
}

}  // namespace

result<std::string> op_defs_cache_key(const fs::path& package_dir, const sim_toolchain& toolchain,
                                      const std::vector<fs::path>& include_dirs) {
  auto sources = read_opdef_sources(package_dir, include_dirs);
  if (!sources.ok()) return sources.error();
  // The builder's fingerprint is all the key needs of it; its cache is never touched.
  compile_cache unused(fs::path(), 0);
  return candidate_builder(toolchain, unused).opdef_reader_key(sources->files, sources->hosts);
}

result<nlohmann::json> read_op_defs(const fs::path& package_dir, const sim_toolchain& toolchain,
                                    const fs::path& work_dir,
                                    const std::vector<fs::path>& include_dirs) {
  auto sources = read_opdef_sources(package_dir, include_dirs);
  if (!sources.ok()) return sources.error();
  const auto& files = sources->files;
  const auto& hosts = sources->hosts;
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  // The OpDefs read before from the same sources with the same toolchain: compiling the host
  // sources takes seconds, and a package is loaded again and again (each op.json it is tried
  // with, each `aopt eval`). Entries are checked by their hash (compile_cache.hpp).
  compile_cache cache(work_dir / "opdef-cache", opdef_cache_bytes);
  candidate_builder builder(toolchain, cache);
  const std::string key = builder.opdef_reader_key(files, hosts);
  // Out of reach of the reader, which runs (sandboxed) in its own scratch dir below.
  auto output = scratch_dir::create(work_dir, "opdef-out-");
  if (!output.ok()) return output.error();
  const fs::path defs_file = output->path() / "opdefs.json";
  if (cache.fetch(key, defs_file)) {
    std::ifstream in(defs_file, std::ios::binary);
    nlohmann::json defs = nlohmann::json::parse(in, nullptr, false);
    if (defs.is_array()) return defs;
  }
  auto scratch = scratch_dir::create(work_dir, "opdef-");
  if (!scratch.ok()) return scratch.error();
  build_limits limits;
  limits.compile_timeout_seconds = opdef_compile_seconds;
  build_outcome built = builder.build_opdef_reader(files, hosts, scratch->path(), limits);
  if (built.result == build_outcome::kind::infra_error) return internal_error(built.message);
  if (built.result != build_outcome::kind::ok) {
    return invalid_argument(fmt::format("{}: the host sources do not compile with aopt's shim: {}",
                                        package_dir.string(), built.message));
  }
  subprocess_options run;
  run.argv = {built.executable.string()};
  run.working_dir = scratch->path().string();
  run.inherit_environment = false;
  run.environment = sandboxed_process_environment();
  run.limits.wall_seconds = opdef_run_seconds;
  run.limits.cpu_seconds = static_cast<uint64_t>(opdef_run_seconds);
  run.output_limit_bytes = 1 << 20;
  run.sandbox = true;
  auto ran = run_subprocess(run);
  if (!ran.ok()) return internal_error("cannot run the OpDef reader: " + ran.error().message());
  if (!ran->succeeded()) {
    return invalid_argument(fmt::format("{}: the OpDef registration failed ({})",
                                        package_dir.string(), ran->describe()));
  }
  nlohmann::json defs = nlohmann::json::parse(ran->stdout_text, nullptr, false);
  if (!defs.is_array()) return internal_error("the OpDef reader printed no JSON array");
  // Only what read successfully is kept: a failure may be the machine's (a timeout under load).
  {
    std::ofstream out(defs_file, std::ios::binary | std::ios::trunc);
    out << ran->stdout_text;
  }
  // A cache that cannot be written costs the next load a compile, nothing else.
  (void)cache.store(key, defs_file);
  return defs;
}

const nlohmann::json* find_op_def(const nlohmann::json& op_defs,
                                  const std::vector<std::string>& names) {
  if (!op_defs.is_array()) return nullptr;
  for (const std::string& name : names) {
    for (const auto& d : op_defs) {
      if (!name.empty() && folded(op_type_of(d)) == folded(name)) return &d;
    }
  }
  return op_defs.size() == 1 ? &op_defs[0] : nullptr;
}

std::string op_defs_listed(const nlohmann::json& op_defs) {
  std::string listed;
  if (op_defs.is_array()) {
    for (const auto& d : op_defs) listed += (listed.empty() ? "" : ", ") + op_type_of(d);
  }
  return fmt::format("{} OpDefs ({}) and none named after the operator",
                     op_defs.is_array() ? op_defs.size() : 0, listed.empty() ? "none" : listed);
}

result<nlohmann::json> op_json_skeleton(const fs::path& package_dir, const nlohmann::json& op_defs,
                                        const std::string& wanted_type) {
  const std::string folder = fs::absolute(package_dir).lexically_normal().filename().string();
  const nlohmann::json* chosen = find_op_def(op_defs, {wanted_type.empty() ? folder : wanted_type});
  // find_op_def falls back to the only OpDef; a type asked for by name must be that type.
  if (!wanted_type.empty() &&
      (chosen == nullptr || folded(op_type_of(*chosen)) != folded(wanted_type))) {
    return invalid_argument(fmt::format("{}: no OpDef of op type {} ({})", package_dir.string(),
                                        wanted_type, op_defs_listed(op_defs)));
  }
  if (chosen == nullptr) {
    return invalid_argument(fmt::format(
        "{}: {}: name one with --op-type, or rename the folder after the operator's op type",
        package_dir.string(), op_defs_listed(op_defs)));
  }
  // Read through json_fields: the reader's output is the host code's, so nothing here throws
  // on a field of another type; errors name the field.
  const json_fields def(*chosen, "");
  auto fail = [&](const status& st) {
    return status(st.code(), package_dir.string() + ": the OpDef's " + st.message());
  };
  std::string op_type;
  if (status st = def.read("op_type", op_type, true); !st.ok()) return fail(st);
  const std::string name = snake_case(op_type);
  auto tensors = [&](const char* key, bool inputs, nlohmann::json& list) -> status {
    list = nlohmann::json::array();
    std::vector<json_fields> params;
    AOPT_RETURN_IF_ERROR(def.read_elements(key, params));
    for (const json_fields& p : params) {
      std::string param_name, param_type;
      AOPT_RETURN_IF_ERROR(p.read("name", param_name, true));
      AOPT_RETURN_IF_ERROR(p.read("param_type", param_type));
      std::vector<json_fields> dtypes;
      AOPT_RETURN_IF_ERROR(p.read_elements("dtypes", dtypes));
      std::string dtype = "float32";
      for (const json_fields& d : dtypes) {
        if (d.value().is_string() && !d.value().get<std::string>().empty()) {
          dtype = d.value().get<std::string>();
          break;
        }
      }
      nlohmann::json t = {{"name", param_name}, {"dtype", dtype}, {"shape", {1}}};
      std::string note = "set the shape";
      if (inputs) note += " and the value range";
      if (param_type == "optional") note += " (an optional input in the OpDef)";
      t["description"] = note;
      list.push_back(std::move(t));
    }
    return {};
  };
  nlohmann::json attrs = nlohmann::json::array();
  std::vector<json_fields> attr_defs;
  if (status st = def.read_elements("attrs", attr_defs); !st.ok()) return fail(st);
  for (const json_fields& a : attr_defs) {
    std::string type, attr_name;
    if (status st = a.read("type", type); !st.ok()) return fail(st);
    if (status st = a.read("name", attr_name, true); !st.ok()) return fail(st);
    if (type.empty() || type == "list_list_int") continue;  // op.json cannot hold it
    const nlohmann::json* given = a.find("value");
    nlohmann::json value = given != nullptr ? *given : nlohmann::json();
    if (value.is_null()) {
      value = type == "bool"                ? nlohmann::json(false)
              : type == "string"            ? nlohmann::json("")
              : type.rfind("list_", 0) == 0 ? nlohmann::json::array()
                                            : nlohmann::json(0);
    }
    attrs.push_back({{"name", attr_name}, {"type", type}, {"value", value}});
  }
  // The files CANN's layout names after the kernel, else the ones the package has.
  auto files = load_package_sources(package_dir);
  if (!files.ok()) return files.error();
  // The file named as CANN's layout names it; else the first of the folder with the suffix
  // whose text holds `marker` (the tiling data's definition, the OpDef's registration), else the
  // first with the suffix: a folder may hold another operator's files too (hypot_grad.cpp
  // beside hypot.cpp), or the tiling header under another name (cartesian_to_frenet1.h).
  auto pick = [&](const std::string& preferred, const std::string& folder_prefix,
                  const std::string& suffix, const std::string& marker) {
    if (files->count(preferred) != 0) return preferred;
    std::string first;
    for (const auto& [path, text] : *files) {
      if (path.rfind(folder_prefix, 0) != 0 || path.size() < suffix.size() ||
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      if (!marker.empty() && text.find(marker) != std::string::npos) return path;
      if (first.empty()) first = path;
    }
    return first.empty() ? preferred : first;
  };
  nlohmann::json inputs, outputs;
  if (status st = tensors("inputs", true, inputs); !st.ok()) return fail(st);
  if (status st = tensors("outputs", false, outputs); !st.ok()) return fail(st);
  // Shapes from a msOpST-style test-case file beside the operator, when there is one.
  const optest_case test_case = first_optest_case(package_dir);
  if (test_case.data.is_object()) {
    apply_test_case(inputs, test_case.data.value("input_desc", nlohmann::json()), true,
                    test_case.source);
    apply_test_case(outputs, test_case.data.value("output_desc", nlohmann::json()), false,
                    test_case.source);
  }
  // An output named like an input is CANN's ref output of it (op_spec.hpp): its dtype and
  // shape are the input's, so the skeleton leaves them to it.
  for (nlohmann::json& out : outputs) {
    const std::string out_name = out.value("name", std::string());
    for (const nlohmann::json& in : inputs) {
      if (in.value("name", std::string()) != out_name) continue;
      out = {{"name", out_name},
             {"inplace", out_name},
             {"description", "input " + out_name +
                                 " updated in place (the OpDef's ref output: the kernel has an "
                                 "argument for it, at the input's memory)"}};
    }
  }
  // The tiling header: the one registering a tiling class for this operator type (a folder may
  // hold another operator's, as scatter_mean holds scatter_mean_grad_tiling.h beside the
  // scatter_mean.h that registers ScatterMean), else by name and content as the others.
  const std::string tiling_marker = "BEGIN_TILING_DATA_DEF";
  std::string tiling_header;
  for (const auto& [path, text] : *files) {
    if (path.rfind("op_host/", 0) == 0 && path.size() > 2 &&
        path.compare(path.size() - 2, 2, ".h") == 0 && registers_tiling_of(text, op_type)) {
      tiling_header = path;
      break;
    }
  }
  if (tiling_header.empty())
    tiling_header = pick("op_host/" + name + "_tiling.h", "op_host/", "_tiling.h", tiling_marker);
  if (files->count(tiling_header) == 0) {
    const std::string other = pick(tiling_header, "op_host/", ".h", tiling_marker);
    if (files->count(other) != 0 && files->at(other).find(tiling_marker) != std::string::npos)
      tiling_header = other;
  }
  nlohmann::json skeleton = {
      {"name", name},
      {"level", 1},
      {"category", "elementwise"},
      {"description", "written by aopt init from the OpDef of " + op_type +
                          ": set the shapes, the inputs' value ranges, the category and the "
                          "reference"},
      {"inputs", inputs},
      {"outputs", outputs},
      {"attrs", attrs},
      {"seed", 1},
      {"files",
       {{"tiling_header", tiling_header},
        {"host", pick("op_host/" + name + ".cpp", "op_host/", ".cpp", "OP_ADD(" + op_type + ")")},
        {"kernel", pick("op_kernel/" + name + ".cpp", "op_kernel/", ".cpp", "void " + name + "(")},
        {"reference", "reference.cpp"}}}};
  return skeleton;
}

}  // namespace aopt::npu
