// aopt's configuration: one typed struct per section of config/aopt.toml, loading with
// validation, and a JSON form for snapshots (the campaign record).
//
// Precedence: the built-in defaults file (config/aopt.toml), then the user's file, then each
// `--set section.key=value` override in order. Every key is validated; an unknown section or
// key, a value of the wrong type or out of range is an invalid_argument error naming the key:
//   "config: campaign.budget: must be >= 1, got 0"
//   "config: campain: unknown section"
//   "config: llm.temperature: expected a number, got string \"hot\""
//
// The in-class defaults below equal config/aopt.toml (a test checks it); the file is where each
// key is documented. To add a key: add it to the file with its comment, to the struct here, and
// to the field list in aopt_config.cpp.
//
// The JSON form is stored in campaign records: do not rename keys or enum strings without a
// storage migration. Secrets (server.token) are read like any key but never written to it, so
// they reach neither the database nor a campaign's id.
//
// Thread-safety: value types; the functions are reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::config {

// campaign.strategy. Persistent strings: "alternating", "stage1", "stage2", "best_of_n",
// "evolve".
enum class strategy { alternating, stage1, stage2, best_of_n, evolve };
// device.kind: "sim", "cann", "cascade".
enum class device_kind { sim, cann, cascade };
// llm.cache: "off", "read", "readwrite".
enum class cache_mode { off, read, readwrite };
// roles.<role>.policy: "heuristic", "llm".
enum class policy_kind { heuristic, llm };
// bank.index: "linear", "hnsw".
enum class index_kind { linear, hnsw };
// report.formats entries: "json", "markdown", "html".
enum class report_format { json, markdown, html };

const char* to_string(strategy x);
const char* to_string(device_kind x);
const char* to_string(cache_mode x);
const char* to_string(policy_kind x);
const char* to_string(index_kind x);
const char* to_string(report_format x);

// Each returns false (and leaves `out` alone) when `text` names no value.
bool parse(const std::string& text, strategy& out);
bool parse(const std::string& text, device_kind& out);
bool parse(const std::string& text, cache_mode& out);
bool parse(const std::string& text, policy_kind& out);
bool parse(const std::string& text, index_kind& out);
bool parse(const std::string& text, report_format& out);

struct campaign_config {
  config::strategy strategy = config::strategy::alternating;
  uint32_t budget = 40;         // candidate evaluations per operator
  uint32_t rounds = 4;          // R
  uint32_t stage1_steps = 5;    // U per round
  uint32_t stage2_steps = 5;    // S per round
  bool stage2_adaptive = true;  // alternating: Stage II's share follows its yield
  uint32_t jobs = 4;            // episodes in flight
  uint64_t seed = 1;
  uint32_t population = 8;  // heuristic mutator population
  uint32_t elite = 2;       // <= population
};

struct device_config {
  device_kind kind = device_kind::sim;
  std::string profile = "ascend910b4";
  std::string hardware_dir;  // "" = builtin_config_dir() / "hardware"; see hardware_dir()
  uint32_t slots = 2;        // device pool size (0: a pure coordinator of remote workers)
  double timeout_s = 60;
  double compile_timeout_s = 120;
  uint32_t input_sets = 3;
  uint32_t repetitions = 1;
  bool detect_races = true;
  // CANN's compiler auto-sync (scalar <-> vector/MTE waits); false turns it off whatever the
  // hardware profile's [compiler] auto_sync says.
  bool auto_sync = true;
  double noise_stddev = 0;  // fraction of the latency; 0 = no injected noise
  std::string work_dir;     // "" = the system temporary folder
  bool keep_scratch = false;
  // Build Stage I's tilings with their tunable values lifted out of the compiled text, so that
  // tilings differing only in those values share one build (npu/sim/device/tiling_constant_lift).
  bool lift_tiling_constants = true;
  // Re-evaluate every accepted improvement once from a cold build before it becomes the best.
  bool confirm_improvements = true;
  uint32_t cpu_seconds = 120;
  uint32_t address_space_mb = 4096;
};

// [cann]: the real-hardware device (device.kind = "cann", and the hardware stage of "cascade").
// Commands are shell command templates (/bin/sh -c) with the placeholders {op_dir} {work_dir}
// {kernel_name} {device_id} {flush_bytes}; config/aopt.toml documents each key.
struct cann_config {
  std::string build = "cd {op_dir} && bash build.sh -n {kernel_name}";
  std::string install =
      "cd {op_dir} && bash build_out/custom_opp_*.run --quiet --install-path={work_dir}/opp";
  std::string run =
      "cd {op_dir} && ASCEND_CUSTOM_OPP_PATH={work_dir}/opp/vendors/customize bash run.sh "
      "{work_dir} {device_id}";
  std::string profile =
      "cd {op_dir} && ASCEND_CUSTOM_OPP_PATH={work_dir}/opp/vendors/customize msprof op "
      "--output={work_dir}/prof --kernel-name={kernel_name} --launch-count=1 bash run.sh "
      "{work_dir} {device_id}";
  std::string flush;  // "" = no separate flush command
  uint64_t flush_bytes = 201326592;
  std::string cann_version =
      "cat ${ASCEND_HOME_PATH:-/usr/local/Ascend/ascend-toolkit/latest}/version.cfg";
  std::string driver_version = "cat /usr/local/Ascend/driver/version.info";
  std::vector<std::string> device_ids = {"0"};
  uint32_t warmup_runs = 2;
  uint32_t min_samples = 10;
  uint32_t max_samples = 30;
  double time_budget_s = 30;
  uint32_t finalist_factor = 3;
  uint32_t remeasure_top = 3;  // finalists per operator re-measured at the campaign's end
  double epsilon = 0.03;
  double confidence = 0.95;
  uint32_t baseline_every = 10;
  double drift_threshold = 0.05;
  std::string measurements_file;  // "" = none
};

// [cascade]: device.kind = "cascade" (simulator first, hardware for the promising).
struct cascade_config {
  double margin = 0.1;
};

struct storage_config {
  std::string db = ".aopt/db";
};

struct llm_config {
  std::string base_url = "http://127.0.0.1:8080/v1";
  std::string model;
  std::string api_key_env = "OPENAI_API_KEY";  // "" = no key
  std::string embedding_model;
  double timeout_s = 300;
  double connect_timeout_s = 10;
  bool verify_tls = true;
  uint32_t max_concurrency = 4;
  uint32_t requests_per_minute = 0;  // 0 = unlimited
  double temperature = 0.7;
  uint32_t max_tokens = 8192;
  uint32_t max_retries = 5;
  uint32_t backoff_initial_ms = 1000;
  uint32_t backoff_max_ms = 60000;
  cache_mode cache = cache_mode::readwrite;
  uint64_t budget_tokens = 0;  // 0 = unlimited
  std::string prompts_dir;     // "" = builtin_config_dir() / "prompts"; see prompts_dir()
  std::map<std::string, std::string> extra_headers;
  double price_per_1k_prompt = 0;
  double price_per_1k_completion = 0;
};

// [stage1]: Stage I (tiling) beyond the budget keys of [campaign] (issue 16).
struct stage1_config {
  // Run every Stage I candidate's tiling function alone (the gate "tiling_probe",
  // agent/roles/tiling_probe_role.cpp) and keep the infeasible ones from the device.
  bool probe_tilings = true;
};

struct role_config {
  policy_kind policy = policy_kind::heuristic;
  // Only the retriever has this key (tuples per query); 0 for every other role.
  uint32_t top_k = 0;
  // A hooked role's other keys, as given (an object): its descriptor's schema checks them when
  // the campaign builds the role (agent/roles/role_descriptor.hpp).
  nlohmann::json settings = nlohmann::json::object();
};

struct pipeline_config {
  std::vector<std::string> stage1 = {"mutator"};
  std::vector<std::string> stage2 = {"diagnoser", "retriever", "refiner"};
  // Hooked roles by hook (agent/episode/hooks.hpp), in the order they are asked.
  std::vector<std::string> annotators;
  std::vector<std::string> gates = {"depth_screen", "tiling_probe"};
  std::vector<std::string> verifiers = {"improvement_confirmation", "validation"};
  std::vector<std::string> observers;
};

struct bank_config {
  double significance = 0.05;
  double dedup_threshold = 0.9;
  index_kind index = index_kind::linear;
};

struct server_config {
  std::string listen = "127.0.0.1:8742";
  std::string token_env = "AOPT_TOKEN";
  // Secret: absent from to_json (see the top of this file). The variable named by token_env,
  // when set and non-empty, wins over it.
  std::string token;
  std::vector<std::string> roots = {"."};
  uint64_t max_body_bytes = 16777216;
  uint64_t max_header_bytes = 16384;
  double shutdown_timeout_s = 30;
  // Connections served at once; more get 503. Lowered to a quarter of the file descriptor limit.
  uint64_t max_connections = 256;
};

// [workers]: evaluation workers on other hosts (issue 19, `aopt worker`, --workers-listen).
struct workers_config {
  // Where the coordinator listens for workers, "host:port"; "" = no listener. Any address other
  // than loopback requires a secret.
  std::string listen;
  std::string secret_env = "AOPT_WORKERS_SECRET";
  // Secret: absent from to_json. The variable named by secret_env, when set and non-empty,
  // wins over it.
  std::string secret;
  double heartbeat_s = 1;           // how often a worker says it is alive
  double heartbeat_timeout_s = 10;  // a worker silent this long is dropped, its leases re-queued
  // A worker that lost its coordinator (or cannot reach it yet) tries to join again, with
  // backoff, for this long before it gives up; 0 = leave at once.
  double rejoin_s = 300;
  uint32_t package_cache = 64;  // operator packages a worker keeps (least recently used go)
};

struct report_config {
  std::string dir = "aopt-reports";
  std::vector<report_format> formats = {report_format::json, report_format::markdown,
                                        report_format::html};
};

struct aopt_config {
  aopt_config();

  campaign_config campaign;
  stage1_config stage1;
  device_config device;
  storage_config storage;
  llm_config llm;
  // One entry per known role (known_roles()), always all of them.
  std::map<std::string, role_config> roles;
  pipeline_config pipeline;
  bank_config bank;
  server_config server;
  report_config report;
  cann_config cann;
  cascade_config cascade;
  workers_config workers;
};

bool operator==(const aopt_config& a, const aopt_config& b);
inline bool operator!=(const aopt_config& a, const aopt_config& b) {
  return !(a == b);
}

// The roles that may appear under [roles.<name>] and in [pipeline], in a fixed order:
// template, mutator, diagnoser, retriever, refiner, rewinder, distiller, then the hooked roles
// (hooked_roles()).
const std::vector<std::string>& known_roles();
// The hooked roles this build has (agent/roles/<name>_role.cpp), by name.
const std::vector<std::string>& hooked_roles();

// The folder holding aopt.toml, hardware/ and prompts/ of this build (the source tree's
// config/ folder).
std::filesystem::path builtin_config_dir();

// The effective folders: the configured one, or the built-in one when the key is "".
std::filesystem::path hardware_dir(const device_config& c);
std::filesystem::path prompts_dir(const llm_config& c);

// Loads the defaults file, then `file` over it (skipped when empty), then each override
// "section.key=value" (deeper keys allowed: "roles.mutator.policy=llm",
// "llm.extra_headers.X-Title=aopt"). An override's value is read as a TOML value; text that is
// no TOML value (a bare word, a URL) is taken as a string, and so is any value given for a key
// whose type is string. Errors: not_found when a file is missing; invalid_argument for a
// syntax error (with file:line:column), a bad override, or a key that fails validation.
result<aopt_config> load_config(const std::filesystem::path& file,
                                const std::vector<std::string>& overrides);

// Every key of every section but the secrets, enums as their strings; from_json(to_json(c)) == c
// when c holds no secret.
nlohmann::json to_json(const aopt_config& c);

// Reads the JSON form with the same validation as load_config. A key missing from the JSON keeps
// its in-class default (so snapshots written before a key existed still load).
result<aopt_config> from_json(const nlohmann::json& j);

}  // namespace aopt::config
