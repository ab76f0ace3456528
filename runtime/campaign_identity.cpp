#include "runtime/campaign_identity.hpp"

#include <map>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/content_hash.hpp"

namespace aopt::runtime {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view roles_section = "roles";

// Settings that say how a campaign runs, never what it finds: more parallelism, another report
// folder or database, another endpoint's rate limits leave its results as they are. A section
// name covers the whole section.
const std::set<std::string, std::less<>>& operational_settings() {
  static const std::set<std::string, std::less<>> settings = {"campaign/jobs",
                                                              "device/slots",
                                                              "device/keep_scratch",
                                                              "device/lift_tiling_constants",
                                                              "device/work_dir",
                                                              "llm/api_key_env",
                                                              "llm/backoff_initial_ms",
                                                              "llm/backoff_max_ms",
                                                              "llm/cache",
                                                              "llm/connect_timeout_s",
                                                              "llm/max_concurrency",
                                                              "llm/max_retries",
                                                              "llm/requests_per_minute",
                                                              "llm/timeout_s",
                                                              "llm/verify_tls",
                                                              "llm/price_per_1k_prompt",
                                                              "llm/price_per_1k_completion",
                                                              "report",
                                                              "server",
                                                              "storage",
                                                              "workers"};
  return settings;
}

// Every setting of a configuration's JSON form by its path ("section/key", "roles/<role>/key");
// arrays and tables of free keys (llm.extra_headers) are one setting each.
std::map<std::string, nlohmann::json> settings_by_path(const nlohmann::json& config) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& [section, fields] : config.items()) {
    for (const auto& [key, value] : fields.items()) {
      if (section == roles_section) {
        for (const auto& [role_key, role_value] : value.items())
          out[section + "/" + key + "/" + role_key] = role_value;
      } else {
        out[section + "/" + key] = value;
      }
    }
  }
  return out;
}

bool is_operational(const std::string& path, const config::aopt_config& config) {
  const std::string section = path.substr(0, path.find('/'));
  if (operational_settings().count(path) || operational_settings().count(section)) return true;
  // The hardware sections shape only campaigns on hardware.
  if (section == "cann")
    return config.device.kind != config::device_kind::cann &&
           config.device.kind != config::device_kind::cascade;
  if (section == "cascade") return config.device.kind != config::device_kind::cascade;
  return false;
}

// The configuration schema of aopt 52696b3, the last version whose ids hashed every setting:
// section/key paths, "roles/*/key" for every role's keys. Frozen: never extend it.
const std::set<std::string, std::less<>>& legacy_schema() {
  static const std::set<std::string, std::less<>> schema = {"bank",
                                                            "bank/dedup_threshold",
                                                            "bank/index",
                                                            "bank/significance",
                                                            "campaign",
                                                            "campaign/budget",
                                                            "campaign/elite",
                                                            "campaign/jobs",
                                                            "campaign/population",
                                                            "campaign/rounds",
                                                            "campaign/seed",
                                                            "campaign/stage1_steps",
                                                            "campaign/stage2_adaptive",
                                                            "campaign/stage2_steps",
                                                            "campaign/strategy",
                                                            "cann",
                                                            "cann/baseline_every",
                                                            "cann/build",
                                                            "cann/cann_version",
                                                            "cann/confidence",
                                                            "cann/device_ids",
                                                            "cann/drift_threshold",
                                                            "cann/driver_version",
                                                            "cann/epsilon",
                                                            "cann/finalist_factor",
                                                            "cann/flush",
                                                            "cann/flush_bytes",
                                                            "cann/install",
                                                            "cann/max_samples",
                                                            "cann/measurements_file",
                                                            "cann/min_samples",
                                                            "cann/profile",
                                                            "cann/remeasure_top",
                                                            "cann/run",
                                                            "cann/time_budget_s",
                                                            "cann/warmup_runs",
                                                            "cascade",
                                                            "cascade/margin",
                                                            "device",
                                                            "device/address_space_mb",
                                                            "device/auto_sync",
                                                            "device/compile_timeout_s",
                                                            "device/confirm_improvements",
                                                            "device/cpu_seconds",
                                                            "device/detect_races",
                                                            "device/hardware_dir",
                                                            "device/input_sets",
                                                            "device/keep_scratch",
                                                            "device/kind",
                                                            "device/noise_stddev",
                                                            "device/profile",
                                                            "device/repetitions",
                                                            "device/slots",
                                                            "device/timeout_s",
                                                            "device/work_dir",
                                                            "llm",
                                                            "llm/api_key_env",
                                                            "llm/backoff_initial_ms",
                                                            "llm/backoff_max_ms",
                                                            "llm/base_url",
                                                            "llm/budget_tokens",
                                                            "llm/cache",
                                                            "llm/connect_timeout_s",
                                                            "llm/embedding_model",
                                                            "llm/extra_headers",
                                                            "llm/max_concurrency",
                                                            "llm/max_retries",
                                                            "llm/max_tokens",
                                                            "llm/model",
                                                            "llm/price_per_1k_completion",
                                                            "llm/price_per_1k_prompt",
                                                            "llm/prompts_dir",
                                                            "llm/requests_per_minute",
                                                            "llm/temperature",
                                                            "llm/timeout_s",
                                                            "llm/verify_tls",
                                                            "pipeline",
                                                            "pipeline/stage1",
                                                            "pipeline/stage2",
                                                            "report",
                                                            "report/dir",
                                                            "report/formats",
                                                            "roles",
                                                            "roles/*",
                                                            "roles/*/policy",
                                                            "roles/*/top_k",
                                                            "server",
                                                            "server/listen",
                                                            "server/max_body_bytes",
                                                            "server/max_connections",
                                                            "server/max_header_bytes",
                                                            "server/roots",
                                                            "server/shutdown_timeout_s",
                                                            "server/token_env",
                                                            "stage1",
                                                            "stage1/probe_tilings",
                                                            "storage",
                                                            "storage/db",
                                                            "workers",
                                                            "workers/heartbeat_s",
                                                            "workers/heartbeat_timeout_s",
                                                            "workers/listen",
                                                            "workers/package_cache",
                                                            "workers/rejoin_s",
                                                            "workers/secret_env"};
  return schema;
}

// The roles of that version; roles added since (the hooked roles) are not part of its ids.
const std::set<std::string, std::less<>>& legacy_roles() {
  static const std::set<std::string, std::less<>> roles = {
      "template", "mutator", "diagnoser", "retriever", "refiner", "rewinder", "distiller"};
  return roles;
}

// Drops from `node` (at `path`) every key the legacy schema does not know.
void keep_legacy_keys(nlohmann::json& node, const std::string& path) {
  if (!node.is_object()) return;
  for (auto it = node.begin(); it != node.end();) {
    const std::string child =
        (path.empty() ? "" : path + "/") + (path == roles_section ? "*" : it.key());
    if (!legacy_schema().count(child) ||
        (path == roles_section && !legacy_roles().count(it.key()))) {
      it = node.erase(it);
      continue;
    }
    // Arrays and free tables (llm.extra_headers) are leaves of the schema.
    if (child.find('/') == std::string::npos || path == roles_section) keep_legacy_keys(*it, child);
    ++it;
  }
}

}  // namespace

std::string derive_campaign_id(const std::vector<fs::path>& operators,
                               const config::aopt_config& config) {
  const std::map<std::string, nlohmann::json> defaults =
      settings_by_path(config::to_json(config::aopt_config{}));
  const std::map<std::string, nlohmann::json> mine = settings_by_path(config::to_json(config));
  std::vector<std::string> parts = {"campaign-id/2"};
  for (const fs::path& p : operators) parts.push_back(p.string());
  for (const auto& [path, value] : mine) {
    if (is_operational(path, config)) continue;
    auto it = defaults.find(path);
    if (it == defaults.end() || it->second != value) parts.push_back(path + "=" + value.dump());
  }
  for (const auto& [path, value] : defaults) {
    if (!mine.count(path) && !is_operational(path, config)) parts.push_back(path + " unset");
  }
  return "c-" + content_hash(parts).substr(0, 12);
}

std::string legacy_campaign_id(const std::vector<fs::path>& operators,
                               const config::aopt_config& config) {
  std::vector<std::string> parts;
  for (const fs::path& p : operators) parts.push_back(p.string());
  nlohmann::json shaping = config::to_json(config);
  keep_legacy_keys(shaping, "");
  shaping["campaign"].erase("jobs");
  shaping["device"].erase("slots");
  for (const char* section : {"report", "server", "storage", "workers"}) shaping.erase(section);
  if (config.device.kind == config::device_kind::sim) {
    for (const char* section : {"cann", "cascade"}) shaping.erase(section);
  }
  if (config.stage1.probe_tilings) shaping.erase("stage1");
  if (config.campaign.stage2_adaptive) shaping["campaign"].erase("stage2_adaptive");
  parts.push_back(shaping.dump());
  return "c-" + content_hash(parts).substr(0, 12);
}

std::string resolve_campaign_id(const storage::store& db, const std::vector<fs::path>& operators,
                                const config::aopt_config& config) {
  const std::string current = derive_campaign_id(operators, config);
  if (db.get_campaign(current).ok()) return current;
  const std::string legacy = legacy_campaign_id(operators, config);
  return db.get_campaign(legacy).ok() ? legacy : current;
}

}  // namespace aopt::runtime
