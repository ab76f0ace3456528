#include "npu/hardware_profile.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <toml++/toml.h>

namespace aopt::npu {
namespace {

const hardware_profile_table* table_named(const std::string& name) {
  for (const auto& t : hardware_profile_tables())
    if (t.table == name) return &t;
  return nullptr;
}

const hardware_profile_table* table_of_field(const std::string& field) {
  for (const auto& t : hardware_profile_tables())
    if (std::find(t.fields.begin(), t.fields.end(), field) != t.fields.end()) return &t;
  return nullptr;
}

std::string table_list() {
  std::string out;
  for (const auto& t : hardware_profile_tables())
    out += (out.empty() ? "[" : ", [") + t.table + "]";
  return out;
}

// A TOML scalar as JSON, or nullopt for arrays, tables and dates (no field has them).
std::optional<nlohmann::json> to_json_value(const toml::node& node) {
  if (auto v = node.as_boolean()) return nlohmann::json(v->get());
  if (auto v = node.as_integer()) return nlohmann::json(v->get());
  if (auto v = node.as_floating_point()) return nlohmann::json(v->get());
  if (auto v = node.as_string()) return nlohmann::json(v->get());
  return std::nullopt;
}

std::string type_name(const toml::node& node) {
  std::ostringstream os;
  os << node.type();
  return os.str();
}

std::string location(const toml::node& node) {
  const toml::source_position pos = node.source().begin;
  return ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

// Flattens the file into the JSON object sim::from_json reads, checking every key's place.
status collect(const toml::table& root, const std::string& file, nlohmann::json& out) {
  for (const auto& [key_view, node] : root) {
    const std::string key(key_view.str());
    const std::string where = file + location(node);
    if (key == "name") {
      auto value = to_json_value(node);
      if (!value)
        return invalid_argument(where + ": name: expected a string, got " + type_name(node));
      out["name"] = *value;
      continue;
    }
    const hardware_profile_table* table = table_named(key);
    if (table == nullptr) {
      if (const hardware_profile_table* home = table_of_field(key))
        return invalid_argument(where + ": " + key + ": belongs in table [" + home->table + "]");
      return invalid_argument(where + ": " + key +
                              ": unknown key (expected name or one of the tables " + table_list() +
                              ")");
    }
    const toml::table* entries = node.as_table();
    if (entries == nullptr)
      return invalid_argument(where + ": " + key + ": expected a table, got " + type_name(node));
    for (const auto& [field_view, value_node] : *entries) {
      const std::string field(field_view.str());
      const std::string qualified = key + "." + field;
      const std::string at = file + location(value_node);
      if (std::find(table->fields.begin(), table->fields.end(), field) == table->fields.end()) {
        if (const hardware_profile_table* home = table_of_field(field))
          return invalid_argument(at + ": " + qualified + ": belongs in table [" + home->table +
                                  "]");
        return invalid_argument(at + ": " + qualified + ": unknown key");
      }
      auto value = to_json_value(value_node);
      if (!value)
        return invalid_argument(at + ": " + qualified + ": expected a number or boolean, got " +
                                type_name(value_node));
      out[field] = *value;
    }
  }
  if (!out.contains("name")) return invalid_argument(file + ": missing key name");
  for (const auto& t : hardware_profile_tables())
    for (const auto& field : t.fields)
      if (!out.contains(field))
        return invalid_argument(file + ": missing key " + t.table + "." + field);
  return status::ok_status();
}

bool looks_like_path(const std::string& s) {
  const std::string suffix = ".toml";
  return s.find('/') != std::string::npos ||
         (s.size() >= suffix.size() &&
          s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0);
}

}  // namespace

const std::vector<hardware_profile_table>& hardware_profile_tables() {
  static const std::vector<hardware_profile_table> tables = {
      {"core", {"vector_cores", "clock_ghz", "ub_bytes", "ub_block_bytes"}},
      {"dma",
       {"gm_read_bytes_per_cycle", "gm_write_bytes_per_cycle", "hbm_gbps", "dma_latency_cycles",
        "dma_burst_overhead_cycles", "dma_efficient_burst_bytes", "dma_short_burst_penalty",
        "dma_unaligned_efficiency"}},
      {"vector",
       {"vec_startup_cycles", "vec_simple_cycles_per_repeat", "vec_mul_cycles_per_repeat",
        "vec_div_transcendental_cycles_per_repeat", "vec_reduce_cycles_per_repeat",
        "vec_cast_cycles_per_repeat", "vec_compare_select_cycles_per_repeat"}},
      {"scalar",
       {"issue_cycles", "scalar_ub_access_cycles", "scalar_gm_access_cycles", "pipe_queue_depth"}},
      {"launch", {"launch_base_us", "launch_per_core_us"}},
      {"compiler", {"auto_sync"}},
      {"cube",
       {"cube_cores", "l1_bytes", "l0a_bytes", "l0b_bytes", "l0c_bytes", "bias_table_bytes",
        "cube_f16_macs_per_cycle", "cube_i8_macs_per_cycle", "cube_f32_macs_per_cycle",
        "cube_startup_cycles", "l2_read_bytes_per_cycle", "mte1_bytes_per_cycle",
        "mte1_latency_cycles", "fixpipe_bytes_per_cycle", "fixpipe_latency_cycles"}},
  };
  return tables;
}

result<sim::hw_profile> load_hardware_profile(const std::filesystem::path& toml_file) {
  const std::string file = toml_file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(toml_file, ec))
    return not_found("hardware profile " + file + ": no such file");
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    const toml::source_position pos = e.source().begin;
    return invalid_argument(file + ":" + std::to_string(pos.line) + ":" +
                            std::to_string(pos.column) + ": " + std::string(e.description()));
  }
  nlohmann::json flat = nlohmann::json::object();
  AOPT_RETURN_IF_ERROR(collect(root, file, flat));
  sim::hw_profile profile;
  try {
    sim::from_json(flat, profile);
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    // sim::from_json says "hw_profile: <key>: <why>"; qualify the key with its table.
    const std::string prefix = "hw_profile: ";
    std::string detail = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
    const std::string key = detail.substr(0, detail.find(':'));
    std::string where = file;
    if (const hardware_profile_table* home = table_of_field(key)) {
      detail = home->table + "." + detail;
      if (const toml::node* node = root.at_path(home->table + "." + key).node())
        where += location(*node);
    } else if (const toml::node* node = root.get(key)) {
      where += location(*node);
    }
    return invalid_argument(where + ": " + detail);
  }
  return profile;
}

result<sim::hw_profile> find_hardware_profile(const std::string& name_or_path,
                                              const std::filesystem::path& hardware_dir) {
  if (name_or_path.empty()) return invalid_argument("hardware profile: empty name");
  if (looks_like_path(name_or_path)) return load_hardware_profile(name_or_path);
  const std::filesystem::path file = hardware_dir / (name_or_path + ".toml");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    std::string available;
    for (const auto& name : list_hardware_profiles(hardware_dir))
      available += (available.empty() ? "" : ", ") + name;
    return not_found("hardware profile '" + name_or_path + "' not found in " +
                     hardware_dir.string() +
                     " (available: " + (available.empty() ? "none" : available) + ")");
  }
  auto profile = load_hardware_profile(file);
  if (profile.ok() && profile->name != name_or_path)
    return invalid_argument(file.string() + ": name: '" + profile->name +
                            "' does not match the file name '" + name_or_path + "'");
  return profile;
}

std::vector<std::string> list_hardware_profiles(const std::filesystem::path& hardware_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(hardware_dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".toml") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace aopt::npu
