#include "npu/sim/device/opdef_reader.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

#include <fmt/format.h>

#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"
#include "npu/op_package.hpp"
#include "npu/optest_case.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr double opdef_compile_seconds = 120;
constexpr double opdef_run_seconds = 20;

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

result<nlohmann::json> read_op_defs(const fs::path& package_dir, const sim_toolchain& toolchain,
                                    const fs::path& work_dir) {
  auto files = load_package_sources(package_dir);
  if (!files.ok()) return files.error();
  std::vector<std::string> hosts;
  for (const auto& [path, text] : *files) {
    if (path.rfind("op_host/", 0) == 0 && path.find('/', 8) == std::string::npos &&
        fs::path(path).extension() == ".cpp") {
      hosts.push_back(path);
    }
  }
  if (hosts.empty()) {
    return invalid_argument(package_dir.string() + ": no host sources (op_host/*.cpp)");
  }
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  auto scratch = scratch_dir::create(work_dir, "opdef-");
  if (!scratch.ok()) return scratch.error();
  // Nothing is cached, so the compile cache is never touched; the builder needs one.
  compile_cache cache(scratch->path() / "objcache", 0);
  candidate_builder builder(toolchain, cache);
  build_limits limits;
  limits.compile_timeout_seconds = opdef_compile_seconds;
  build_outcome built = builder.build_opdef_reader(*files, hosts, scratch->path(), limits);
  if (built.result == build_outcome::kind::infra_error) return internal_error(built.message);
  if (built.result != build_outcome::kind::ok) {
    return invalid_argument(fmt::format("{}: the host sources do not compile with aopt's shim: {}",
                                        package_dir.string(), built.message));
  }
  subprocess_options run;
  run.argv = {built.executable.string()};
  run.working_dir = scratch->path().string();
  run.inherit_environment = false;
  run.environment = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
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
  return defs;
}

const nlohmann::json* find_op_def(const nlohmann::json& op_defs,
                                  const std::vector<std::string>& names) {
  if (!op_defs.is_array()) return nullptr;
  for (const std::string& name : names) {
    for (const auto& d : op_defs) {
      if (!name.empty() && folded(d.value("op_type", "")) == folded(name)) return &d;
    }
  }
  return op_defs.size() == 1 ? &op_defs[0] : nullptr;
}

std::string op_defs_listed(const nlohmann::json& op_defs) {
  std::string listed;
  for (const auto& d : op_defs) listed += (listed.empty() ? "" : ", ") + d.value("op_type", "");
  return fmt::format("{} OpDefs ({}) and none named after the operator", op_defs.size(),
                     listed.empty() ? "none" : listed);
}

result<nlohmann::json> op_json_skeleton(const fs::path& package_dir,
                                        const nlohmann::json& op_defs) {
  const std::string folder = fs::absolute(package_dir).lexically_normal().filename().string();
  const nlohmann::json* chosen = find_op_def(op_defs, {folder});
  if (chosen == nullptr) {
    return invalid_argument(fmt::format("{}: {}: rename the folder after the operator's op type",
                                        package_dir.string(), op_defs_listed(op_defs)));
  }
  const std::string op_type = chosen->value("op_type", "");
  const std::string name = snake_case(op_type);
  auto tensors = [&](const char* key, bool inputs) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : (*chosen)[key]) {
      std::string dtype = "float32";
      for (const auto& d : p["dtypes"]) {
        if (d.is_string() && !d.get<std::string>().empty()) {
          dtype = d.get<std::string>();
          break;
        }
      }
      nlohmann::json t = {{"name", p.value("name", "")}, {"dtype", dtype}, {"shape", {1}}};
      std::string note = "set the shape";
      if (inputs) note += " and the value range";
      if (p.value("param_type", "") == "optional") note += " (an optional input in the OpDef)";
      t["description"] = note;
      list.push_back(std::move(t));
    }
    return list;
  };
  nlohmann::json attrs = nlohmann::json::array();
  for (const auto& a : (*chosen)["attrs"]) {
    const std::string type = a.value("type", "");
    if (type.empty() || type == "list_list_int") continue;  // op.json cannot hold it
    nlohmann::json value = a.contains("value") ? a["value"] : nlohmann::json();
    if (value.is_null()) {
      value = type == "bool"                ? nlohmann::json(false)
              : type == "string"            ? nlohmann::json("")
              : type.rfind("list_", 0) == 0 ? nlohmann::json::array()
                                            : nlohmann::json(0);
    }
    attrs.push_back({{"name", a.value("name", "")}, {"type", type}, {"value", value}});
  }
  // The files CANN's layout names after the kernel, else the ones the package has.
  auto files = load_package_sources(package_dir);
  if (!files.ok()) return files.error();
  auto pick = [&](const std::string& preferred, const std::string& folder_prefix,
                  const std::string& suffix) {
    if (files->count(preferred) != 0) return preferred;
    for (const auto& [path, text] : *files) {
      if (path.rfind(folder_prefix, 0) == 0 && path.size() >= suffix.size() &&
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return path;
      }
    }
    return preferred;
  };
  nlohmann::json inputs = tensors("inputs", true);
  nlohmann::json outputs = tensors("outputs", false);
  // Shapes from a msOpST-style test-case file beside the operator, when there is one.
  const optest_case test_case = first_optest_case(package_dir);
  if (test_case.data.is_object()) {
    apply_test_case(inputs, test_case.data["input_desc"], true, test_case.source);
    apply_test_case(outputs, test_case.data.value("output_desc", nlohmann::json()), false,
                    test_case.source);
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
       {{"tiling_header", pick("op_host/" + name + "_tiling.h", "op_host/", "_tiling.h")},
        {"host", pick("op_host/" + name + ".cpp", "op_host/", ".cpp")},
        {"kernel", pick("op_kernel/" + name + ".cpp", "op_kernel/", ".cpp")},
        {"reference", "reference.cpp"}}}};
  return skeleton;
}

}  // namespace aopt::npu
