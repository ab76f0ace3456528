#include "config/aopt_config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include <toml++/toml.h>

namespace aopt::config {

namespace {

using nlohmann::json;

// --- enum strings (persistent: see the header) -------------------------------------------------

template <class E>
struct enum_name {
  E value;
  const char* name;
};

constexpr enum_name<strategy> strategy_names[] = {
    {strategy::alternating, "alternating"}, {strategy::stage1, "stage1"},
    {strategy::stage2, "stage2"},           {strategy::best_of_n, "best_of_n"},
    {strategy::evolve, "evolve"},
};
constexpr enum_name<device_kind> device_kind_names[] = {
    {device_kind::sim, "sim"},
    {device_kind::cann, "cann"},
    {device_kind::cascade, "cascade"},
};
constexpr enum_name<cache_mode> cache_mode_names[] = {
    {cache_mode::off, "off"},
    {cache_mode::read, "read"},
    {cache_mode::readwrite, "readwrite"},
};
constexpr enum_name<policy_kind> policy_kind_names[] = {
    {policy_kind::heuristic, "heuristic"},
    {policy_kind::llm, "llm"},
};
constexpr enum_name<index_kind> index_kind_names[] = {
    {index_kind::linear, "linear"},
    {index_kind::hnsw, "hnsw"},
};
constexpr enum_name<report_format> report_format_names[] = {
    {report_format::json, "json"},
    {report_format::markdown, "markdown"},
    {report_format::html, "html"},
};

template <class E, size_t N>
const char* name_of(const enum_name<E> (&names)[N], E value) {
  for (const auto& n : names)
    if (n.value == value) return n.name;
  return "?";
}

template <class E, size_t N>
bool value_of(const enum_name<E> (&names)[N], const std::string& text, E& out) {
  for (const auto& n : names) {
    if (text == n.name) {
      out = n.value;
      return true;
    }
  }
  return false;
}

template <class E, size_t N>
std::string allowed_names(const enum_name<E> (&names)[N]) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += '"';
    out += n.name;
    out += '"';
  }
  return out;
}

// The names table of each enum, so the field visitors can take any of them.
const auto& names_of(strategy) {
  return strategy_names;
}
const auto& names_of(device_kind) {
  return device_kind_names;
}
const auto& names_of(cache_mode) {
  return cache_mode_names;
}
const auto& names_of(policy_kind) {
  return policy_kind_names;
}
const auto& names_of(index_kind) {
  return index_kind_names;
}
const auto& names_of(report_format) {
  return report_format_names;
}

// --- messages ------------------------------------------------------------------------------------

status config_error(const std::string& key, const std::string& reason) {
  return invalid_argument("config: " + key + ": " + reason);
}

// "integer 3", "string \"x\"", "table": how a wrong value is shown in a type error.
std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      return "string " + value.dump();
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer " + value.dump();
    case json::value_t::number_float:
      return "number " + value.dump();
    case json::value_t::boolean:
      return "boolean " + value.dump();
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "table";
    default:
      return value.type_name();
  }
}

std::string number_text(double x) {
  return json(x).dump();
}

// --- ranges --------------------------------------------------------------------------------------

struct int_range {
  uint64_t min = 0;
  uint64_t max = UINT64_MAX;
};

// A closed or open interval of doubles.
struct real_range {
  double min;
  bool min_open;
  double max;
  bool max_open;
};

constexpr real_range positive{0, true, HUGE_VAL, false};
constexpr real_range non_negative{0, false, HUGE_VAL, false};

std::string range_violation(double x, const real_range& r) {
  if (std::isnan(x)) return "must be a number, got nan";
  // No setting means "forever" by infinity (a timeout of inf would wait for ever, or overflow
  // the conversion to a duration).
  if (std::isinf(x)) return std::string("must be a finite number, got ") + (x > 0 ? "inf" : "-inf");
  bool low = r.min_open ? !(x > r.min) : !(x >= r.min);
  bool high = r.max_open ? !(x < r.max) : !(x <= r.max);
  if (!low && !high) return {};
  std::string lower = std::string(r.min_open ? "> " : ">= ") + number_text(r.min);
  std::string upper = std::string(r.max_open ? "< " : "<= ") + number_text(r.max);
  std::string rule = std::isinf(r.max) ? lower : lower + " and " + upper;
  return "must be " + rule + ", got " + number_text(x);
}

// --- reading JSON into the structs, strictly -----------------------------------------------------

// Reads the keys of one table (a section, or a role's table) into struct fields. Remembers the
// first error; finish() reports keys no field asked for.
class table_reader {
 public:
  table_reader(const json& table, std::string path) : table_(table), path_(std::move(path)) {}

  status finish() {
    if (!error_.ok()) return error_;
    for (const auto& item : table_.items())
      if (seen_.count(item.key()) == 0) return config_error(key_path(item.key()), "unknown key");
    return status::ok_status();
  }

  template <class T>
  void integer(const char* key, T& out, int_range range = {}) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_number_integer()) return fail(key, "expected an integer, got " + describe(*v));
    if (v->is_number_unsigned()) {
      check_integer(key, v->get<uint64_t>(), range, out);
    } else {
      auto x = v->get<int64_t>();
      if (x < 0) return fail(key, "must be >= " + std::to_string(range.min) + ", got " + v->dump());
      check_integer(key, static_cast<uint64_t>(x), range, out);
    }
  }

  void real(const char* key, double& out, real_range range = non_negative) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_number()) return fail(key, "expected a number, got " + describe(*v));
    double x = v->get<double>();
    std::string violation = range_violation(x, range);
    if (!violation.empty()) return fail(key, violation);
    out = x;
  }

  void boolean(const char* key, bool& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_boolean()) return fail(key, "expected a boolean, got " + describe(*v));
    out = v->get<bool>();
  }

  // `non_empty`: an empty string is an error.
  void string(const char* key, std::string& out, bool non_empty = false) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return fail(key, "expected a string, got " + describe(*v));
    auto s = v->get<std::string>();
    if (non_empty && s.empty()) return fail(key, "must not be empty");
    out = std::move(s);
  }

  // Like string(), but no error message quotes the value, which must not reach a log.
  void secret(const char* key, std::string& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return fail(key, "expected a string");
    out = v->get<std::string>();
  }

  template <class E>
  void enumeration(const char* key, E& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return fail(key, "expected a string, got " + describe(*v));
    if (!parse(v->get<std::string>(), out))
      fail(key, "must be one of " + allowed_names(names_of(E{})) + ", got " + v->dump());
  }

  // `unique`: an entry given twice is an error; `non_empty_entries`: "" is an error.
  void string_list(const char* key, std::vector<std::string>& out, bool unique,
                   bool non_empty_entries) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_array()) return fail(key, "expected an array of strings, got " + describe(*v));
    std::vector<std::string> items;
    for (size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      std::string at = std::string(key) + "[" + std::to_string(i) + "]";
      if (!e.is_string()) return fail(at, "expected a string, got " + describe(e));
      auto s = e.get<std::string>();
      if (non_empty_entries && s.empty()) return fail(at, "must not be empty");
      if (unique && std::find(items.begin(), items.end(), s) != items.end())
        return fail(at, "\"" + s + "\" is listed twice");
      items.push_back(std::move(s));
    }
    out = std::move(items);
  }

  template <class E>
  void enum_list(const char* key, std::vector<E>& out) {
    if (table_.find(key) == table_.end()) {
      seen_.insert(key);
      return;
    }
    std::vector<std::string> texts;
    string_list(key, texts, true, false);
    if (!error_.ok()) return;
    std::vector<E> items;
    for (size_t i = 0; i < texts.size(); ++i) {
      E e{};
      if (!parse(texts[i], e))
        return fail(
            std::string(key) + "[" + std::to_string(i) + "]",
            "must be one of " + allowed_names(names_of(E{})) + ", got \"" + texts[i] + "\"");
      items.push_back(e);
    }
    out = std::move(items);
  }

  void string_map(const char* key, std::map<std::string, std::string>& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_object()) return fail(key, "expected a table of strings, got " + describe(*v));
    std::map<std::string, std::string> items;
    for (const auto& item : v->items()) {
      std::string at = std::string(key) + "." + item.key();
      if (!item.value().is_string())
        return fail(at, "expected a string, got " + describe(item.value()));
      items[item.key()] = item.value().get<std::string>();
    }
    out = std::move(items);
  }

  // Reports an error found by a check outside the reader, keeping the first error.
  void fail(const std::string& key, const std::string& reason) {
    if (error_.ok()) error_ = config_error(key_path(key), reason);
  }

  bool ok() const { return error_.ok(); }

 private:
  const json* find(const char* key) {
    seen_.insert(key);
    if (!error_.ok()) return nullptr;
    auto it = table_.find(key);
    return it == table_.end() ? nullptr : &*it;
  }

  template <class T>
  void check_integer(const char* key, uint64_t x, int_range range, T& out) {
    uint64_t max = std::min<uint64_t>(range.max, std::numeric_limits<T>::max());
    if (x < range.min)
      return fail(key, "must be >= " + std::to_string(range.min) + ", got " + std::to_string(x));
    if (x > max)
      return fail(key, "must be <= " + std::to_string(max) + ", got " + std::to_string(x));
    out = static_cast<T>(x);
  }

  std::string key_path(const std::string& key) const { return path_ + "." + key; }

  const json& table_;
  std::string path_;
  std::set<std::string> seen_;
  status error_;
};

// Writes struct fields as JSON; the same calls as table_reader so one field list serves both.
class table_writer {
 public:
  template <class T>
  void integer(const char* key, const T& value, int_range = {}) {
    out_[key] = value;
  }
  void real(const char* key, double value, real_range = non_negative) { out_[key] = value; }
  void boolean(const char* key, bool value) { out_[key] = value; }
  void string(const char* key, const std::string& value, bool = false) { out_[key] = value; }
  // Secrets stay out of the JSON form: it is stored in campaign records and hashed into ids.
  void secret(const char*, const std::string&) {}
  template <class E>
  void enumeration(const char* key, E value) {
    out_[key] = to_string(value);
  }
  void string_list(const char* key, const std::vector<std::string>& value, bool, bool) {
    out_[key] = value;
  }
  template <class E>
  void enum_list(const char* key, const std::vector<E>& value) {
    json items = json::array();
    for (E e : value) items.push_back(to_string(e));
    out_[key] = std::move(items);
  }
  void string_map(const char* key, const std::map<std::string, std::string>& value) {
    out_[key] = value.empty() ? json::object() : json(value);
  }

  json take() { return std::move(out_); }

 private:
  json out_ = json::object();
};

// --- the field lists (one per section; C is the struct, const or not) ----------------------------

template <class V, class C>
void campaign_fields(V& v, C& c) {
  v.enumeration("strategy", c.strategy);
  v.integer("budget", c.budget, {1});
  v.integer("rounds", c.rounds, {1});
  v.integer("stage1_steps", c.stage1_steps);
  v.integer("stage2_steps", c.stage2_steps);
  v.boolean("stage2_adaptive", c.stage2_adaptive);
  v.integer("jobs", c.jobs, {1});
  v.integer("seed", c.seed);
  v.integer("population", c.population, {1});
  v.integer("elite", c.elite, {1});
}

template <class V, class C>
void stage1_fields(V& v, C& c) {
  v.boolean("probe_tilings", c.probe_tilings);
}

template <class V, class C>
void device_fields(V& v, C& c) {
  v.enumeration("kind", c.kind);
  v.string("profile", c.profile, true);
  v.string("hardware_dir", c.hardware_dir);
  v.integer("slots", c.slots, {0});
  v.real("timeout_s", c.timeout_s, positive);
  v.real("compile_timeout_s", c.compile_timeout_s, positive);
  v.integer("input_sets", c.input_sets, {3});
  v.integer("repetitions", c.repetitions, {1});
  v.boolean("detect_races", c.detect_races);
  v.boolean("auto_sync", c.auto_sync);
  v.real("noise_stddev", c.noise_stddev, {0, false, 1, true});
  v.string("work_dir", c.work_dir);
  v.boolean("keep_scratch", c.keep_scratch);
  v.boolean("lift_tiling_constants", c.lift_tiling_constants);
  v.boolean("confirm_improvements", c.confirm_improvements);
  v.integer("cpu_seconds", c.cpu_seconds, {1});
  v.integer("address_space_mb", c.address_space_mb, {64});
}

template <class V, class C>
void storage_fields(V& v, C& c) {
  v.string("db", c.db, true);
}

template <class V, class C>
void llm_fields(V& v, C& c) {
  v.string("base_url", c.base_url);
  v.string("model", c.model);
  v.string("api_key_env", c.api_key_env);
  v.string("embedding_model", c.embedding_model);
  v.real("timeout_s", c.timeout_s, positive);
  v.real("connect_timeout_s", c.connect_timeout_s, positive);
  v.boolean("verify_tls", c.verify_tls);
  v.integer("max_concurrency", c.max_concurrency, {1});
  v.integer("requests_per_minute", c.requests_per_minute);
  v.real("temperature", c.temperature, {0, false, 2, false});
  v.integer("max_tokens", c.max_tokens, {1});
  v.integer("max_retries", c.max_retries);
  v.integer("backoff_initial_ms", c.backoff_initial_ms, {1});
  v.integer("backoff_max_ms", c.backoff_max_ms, {1});
  v.enumeration("cache", c.cache);
  v.integer("budget_tokens", c.budget_tokens);
  v.string("prompts_dir", c.prompts_dir);
  v.string_map("extra_headers", c.extra_headers);
  v.real("price_per_1k_prompt", c.price_per_1k_prompt);
  v.real("price_per_1k_completion", c.price_per_1k_completion);
}

constexpr const char retriever_role[] = "retriever";

template <class V, class C>
void role_fields(V& v, C& c, const std::string& role) {
  v.enumeration("policy", c.policy);
  if (role == retriever_role) v.integer("top_k", c.top_k, {1});
}

template <class V, class C>
void pipeline_fields(V& v, C& c) {
  v.string_list("stage1", c.stage1, true, true);
  v.string_list("stage2", c.stage2, true, true);
  v.string_list("annotators", c.annotators, true, true);
  v.string_list("gates", c.gates, true, true);
  v.string_list("verifiers", c.verifiers, true, true);
  v.string_list("observers", c.observers, true, true);
}

bool is_hooked_role(const std::string& name) {
  const std::vector<std::string>& hooked = hooked_roles();
  return std::find(hooked.begin(), hooked.end(), name) != hooked.end();
}

template <class V, class C>
void bank_fields(V& v, C& c) {
  v.real("significance", c.significance, {0, true, 1, true});
  v.real("dedup_threshold", c.dedup_threshold, {0, true, 1, false});
  v.enumeration("index", c.index);
}

template <class V, class C>
void server_fields(V& v, C& c) {
  v.string("listen", c.listen, true);
  v.string("token_env", c.token_env, true);
  v.secret("token", c.token);
  v.string_list("roots", c.roots, false, true);
  v.integer("max_body_bytes", c.max_body_bytes, {1024});
  v.integer("max_header_bytes", c.max_header_bytes, {1024});
  v.real("shutdown_timeout_s", c.shutdown_timeout_s, positive);
  v.integer("max_connections", c.max_connections, {1, 1000000});
}

template <class V, class C>
void report_fields(V& v, C& c) {
  v.string("dir", c.dir, true);
  v.enum_list("formats", c.formats);
}

template <class V, class C>
void cann_fields(V& v, C& c) {
  v.string("build", c.build, true);
  v.string("install", c.install);
  v.string("run", c.run, true);
  v.string("profile", c.profile, true);
  v.string("flush", c.flush);
  v.integer("flush_bytes", c.flush_bytes);
  v.string("cann_version", c.cann_version);
  v.string("driver_version", c.driver_version);
  v.string_list("device_ids", c.device_ids, true, true);
  v.integer("warmup_runs", c.warmup_runs);
  v.integer("min_samples", c.min_samples, {1, 400});
  v.integer("max_samples", c.max_samples, {1, 400});
  v.real("time_budget_s", c.time_budget_s, positive);
  v.integer("finalist_factor", c.finalist_factor, {1, 10});
  v.integer("remeasure_top", c.remeasure_top, {0, 20});
  v.real("epsilon", c.epsilon);
  v.real("confidence", c.confidence, {0, true, 1, true});
  v.integer("baseline_every", c.baseline_every, {1});
  v.real("drift_threshold", c.drift_threshold, positive);
  v.string("measurements_file", c.measurements_file);
}

template <class V, class C>
void cascade_fields(V& v, C& c) {
  v.real("margin", c.margin);
}

template <class V, class C>
void workers_fields(V& v, C& c) {
  v.string("listen", c.listen);
  v.string("secret_env", c.secret_env, true);
  v.secret("secret", c.secret);
  v.real("heartbeat_s", c.heartbeat_s, positive);
  v.real("heartbeat_timeout_s", c.heartbeat_timeout_s, positive);
  v.real("rejoin_s", c.rejoin_s);
  v.integer("package_cache", c.package_cache, {1});
}

// Every section but [roles], which is a table of tables and read separately.
template <class V, class C>
void for_each_section(V&& visit, C& c) {
  visit("campaign", [&](auto& v) { campaign_fields(v, c.campaign); });
  visit("stage1", [&](auto& v) { stage1_fields(v, c.stage1); });
  visit("device", [&](auto& v) { device_fields(v, c.device); });
  visit("storage", [&](auto& v) { storage_fields(v, c.storage); });
  visit("llm", [&](auto& v) { llm_fields(v, c.llm); });
  visit("pipeline", [&](auto& v) { pipeline_fields(v, c.pipeline); });
  visit("bank", [&](auto& v) { bank_fields(v, c.bank); });
  visit("server", [&](auto& v) { server_fields(v, c.server); });
  visit("report", [&](auto& v) { report_fields(v, c.report); });
  visit("cann", [&](auto& v) { cann_fields(v, c.cann); });
  visit("cascade", [&](auto& v) { cascade_fields(v, c.cascade); });
  visit("workers", [&](auto& v) { workers_fields(v, c.workers); });
}

constexpr const char roles_section[] = "roles";

std::string joined_roles() {
  std::string out;
  for (const auto& r : known_roles()) out += (out.empty() ? "" : ", ") + r;
  return out;
}

status read_roles(const json& roles, std::map<std::string, role_config>& out) {
  if (!roles.is_object())
    return config_error(roles_section, "expected a table, got " + describe(roles));
  for (const auto& item : roles.items()) {
    std::string path = std::string(roles_section) + "." + item.key();
    auto known = out.find(item.key());
    if (known == out.end())
      return config_error(path, "unknown role (known: " + joined_roles() + ")");
    if (!item.value().is_object())
      return config_error(path, "expected a table, got " + describe(item.value()));
    json fields = item.value();
    if (is_hooked_role(item.key())) {
      // Its descriptor's schema checks the rest when the campaign builds the role.
      json settings = json::object();
      for (auto it = fields.begin(); it != fields.end();) {
        if (it.key() == "policy") {
          ++it;
          continue;
        }
        settings[it.key()] = *it;
        it = fields.erase(it);
      }
      known->second.settings = std::move(settings);
    }
    table_reader reader(fields, path);
    role_fields(reader, known->second, item.key());
    AOPT_RETURN_IF_ERROR(reader.finish());
  }
  return status::ok_status();
}

// "host:port" or "[v6]:port" with port 0..65535 (0 lets the OS choose, for tests).
bool valid_listen(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  std::string host = text.substr(0, colon), port = text.substr(colon + 1);
  if (port.size() > 5 || !std::all_of(port.begin(), port.end(), ::isdigit)) return false;
  if (std::stoul(port) > 65535) return false;
  if (host.front() == '[') return host.back() == ']' && host.size() > 2;
  return host.find(':') == std::string::npos;
}

bool has_line_break(const std::string& s) {
  return s.find_first_of("\r\n") != std::string::npos;
}

// Rules that tie keys together or look inside values; run after every key was read.
status check_consistency(const aopt_config& c) {
  const auto& cam = c.campaign;
  if (cam.elite > cam.population)
    return config_error("campaign.elite", "must be <= campaign.population (" +
                                              std::to_string(cam.population) + "), got " +
                                              std::to_string(cam.elite));
  if (cam.strategy == strategy::alternating && cam.stage1_steps + cam.stage2_steps == 0)
    return config_error("campaign.stage1_steps",
                        "stage1_steps and stage2_steps are both 0, so strategy \"alternating\" "
                        "has no step to take");
  if (cam.strategy == strategy::stage1 && cam.stage1_steps == 0)
    return config_error("campaign.stage1_steps", "must be >= 1 for strategy \"stage1\", got 0");
  if (cam.strategy == strategy::stage2 && cam.stage2_steps == 0)
    return config_error("campaign.stage2_steps", "must be >= 1 for strategy \"stage2\", got 0");

  // [hardening] device.profile names a file of device.hardware_dir; a path would read any file
  // the daemon can (a profile file of one's own goes into hardware_dir).
  if (c.device.profile.find('/') != std::string::npos || c.device.profile == "." ||
      c.device.profile == ".." ||
      (c.device.profile.size() > 5 &&
       c.device.profile.compare(c.device.profile.size() - 5, 5, ".toml") == 0))
    return config_error("device.profile",
                        "must be a profile name (a file <name>.toml of device.hardware_dir), "
                        "not a path: \"" +
                            c.device.profile + "\"");

  const auto& llm = c.llm;
  if (llm.base_url.rfind("http://", 0) != 0 && llm.base_url.rfind("https://", 0) != 0)
    return config_error("llm.base_url", "must start with \"http://\" or \"https://\", got \"" +
                                            llm.base_url + "\"");
  if (llm.backoff_max_ms < llm.backoff_initial_ms)
    return config_error("llm.backoff_max_ms", "must be >= llm.backoff_initial_ms (" +
                                                  std::to_string(llm.backoff_initial_ms) +
                                                  "), got " + std::to_string(llm.backoff_max_ms));
  for (const auto& [name, value] : llm.extra_headers) {
    if (name.empty() || has_line_break(name) || name.find(':') != std::string::npos)
      return config_error("llm.extra_headers", "\"" + name + "\" is no valid header name");
    if (has_line_break(value))
      return config_error("llm.extra_headers." + name, "must not contain a line break");
  }
  for (const auto& [role, rc] : c.roles) {
    if (rc.policy != policy_kind::llm) continue;
    std::string because = "must be set because roles." + role + ".policy is \"llm\"";
    if (llm.model.empty()) return config_error("llm.model", because);
    if (role == retriever_role && llm.embedding_model.empty())
      return config_error("llm.embedding_model", because);
  }

  for (const auto* stage : {&c.pipeline.stage1, &c.pipeline.stage2}) {
    std::string key = stage == &c.pipeline.stage1 ? "pipeline.stage1" : "pipeline.stage2";
    if (stage->empty()) return config_error(key, "must name at least one role");
    for (size_t i = 0; i < stage->size(); ++i)
      if (c.roles.count((*stage)[i]) == 0)
        return config_error(key + "[" + std::to_string(i) + "]",
                            "unknown role \"" + (*stage)[i] + "\" (known: " + joined_roles() + ")");
  }

  if (!valid_listen(c.server.listen))
    return config_error("server.listen",
                        "expected \"host:port\" or \"[ipv6]:port\" with port 0..65535, got \"" +
                            c.server.listen + "\"");
  if (!c.workers.listen.empty() && !valid_listen(c.workers.listen))
    return config_error("workers.listen",
                        "expected \"host:port\" or \"[ipv6]:port\" with port 0..65535, got \"" +
                            c.workers.listen + "\"");
  if (c.workers.heartbeat_timeout_s <= c.workers.heartbeat_s)
    return config_error("workers.heartbeat_timeout_s",
                        "must be greater than workers.heartbeat_s, or every worker is dropped");
  return status::ok_status();
}

// --- TOML ----------------------------------------------------------------------------------------

result<json> toml_to_json(const toml::node& node, const std::string& where) {
  if (auto* t = node.as_table()) {
    json out = json::object();
    for (const auto& [key, value] : *t) {
      auto v = toml_to_json(value, where);
      if (!v.ok()) return v;
      out[std::string(key.str())] = std::move(v).value();
    }
    return out;
  }
  if (auto* a = node.as_array()) {
    json out = json::array();
    for (const auto& value : *a) {
      auto v = toml_to_json(value, where);
      if (!v.ok()) return v;
      out.push_back(std::move(v).value());
    }
    return out;
  }
  if (auto* s = node.as_string()) return json(s->get());
  if (auto* i = node.as_integer()) return json(i->get());
  if (auto* f = node.as_floating_point()) return json(f->get());
  if (auto* b = node.as_boolean()) return json(b->get());
  const auto& at = node.source().begin;
  return invalid_argument("config: " + where + ":" + std::to_string(at.line) + ":" +
                          std::to_string(at.column) + ": dates and times are not supported");
}

result<json> read_toml_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return not_found("config: " + file.string() + ": no such file");
  try {
    toml::table table = toml::parse_file(file.string());
    return toml_to_json(table, file.string());
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    return invalid_argument("config: " + file.string() + ":" + std::to_string(at.line) + ":" +
                            std::to_string(at.column) + ": " + std::string(e.description()));
  }
}

// Reads an override's value as TOML; nullopt when the text is no single TOML value.
std::optional<json> parse_toml_value(const std::string& text) {
  try {
    toml::table table = toml::parse("v = " + text);
    if (table.size() != 1 || !table.contains("v")) return std::nullopt;
    auto v = toml_to_json(*table.get("v"), "--set");
    if (!v.ok()) return std::nullopt;
    return std::move(v).value();
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

void merge_into(json& base, const json& overlay) {
  for (const auto& item : overlay.items()) {
    auto it = base.find(item.key());
    if (it != base.end() && it->is_object() && item.value().is_object())
      merge_into(*it, item.value());
    else
      base[item.key()] = item.value();
  }
}

status apply_override(json& config, const std::string& text) {
  auto bad = [&](const std::string& reason) {
    return invalid_argument("config: --set '" + text + "': " + reason);
  };
  auto eq = text.find('=');
  if (eq == std::string::npos) return bad("expected section.key=value");
  std::string key = text.substr(0, eq), value_text = text.substr(eq + 1);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() < 2 ||
      std::any_of(parts.begin(), parts.end(), [](auto& p) { return p.empty(); }))
    return bad("expected section.key=value");

  json* node = &config;
  std::string walked;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    walked += (walked.empty() ? "" : ".") + parts[i];
    json& next = (*node)[parts[i]];
    if (next.is_null()) next = json::object();
    if (!next.is_object()) return bad(walked + " is no table");
    node = &next;
  }
  json& target = (*node)[parts.back()];
  auto parsed = parse_toml_value(value_text);
  if (!parsed || (target.is_string() && !parsed->is_string()))
    target = value_text;
  else
    target = std::move(*parsed);
  return status::ok_status();
}

}  // namespace

const char* to_string(strategy x) {
  return name_of(strategy_names, x);
}
const char* to_string(device_kind x) {
  return name_of(device_kind_names, x);
}
const char* to_string(cache_mode x) {
  return name_of(cache_mode_names, x);
}
const char* to_string(policy_kind x) {
  return name_of(policy_kind_names, x);
}
const char* to_string(index_kind x) {
  return name_of(index_kind_names, x);
}
const char* to_string(report_format x) {
  return name_of(report_format_names, x);
}

bool parse(const std::string& text, strategy& out) {
  return value_of(strategy_names, text, out);
}
bool parse(const std::string& text, device_kind& out) {
  return value_of(device_kind_names, text, out);
}
bool parse(const std::string& text, cache_mode& out) {
  return value_of(cache_mode_names, text, out);
}
bool parse(const std::string& text, policy_kind& out) {
  return value_of(policy_kind_names, text, out);
}
bool parse(const std::string& text, index_kind& out) {
  return value_of(index_kind_names, text, out);
}
bool parse(const std::string& text, report_format& out) {
  return value_of(report_format_names, text, out);
}

aopt_config::aopt_config() {
  for (const auto& role : known_roles()) roles[role] = role_config{};
  roles[retriever_role].top_k = 3;
}

bool operator==(const aopt_config& a, const aopt_config& b) {
  return to_json(a) == to_json(b) && a.server.token == b.server.token &&
         a.workers.secret == b.workers.secret;
}

const std::vector<std::string>& hooked_roles() {
  static const std::vector<std::string> roles = {
#include "roles/role_names.inc"
  };
  return roles;
}

const std::vector<std::string>& known_roles() {
  static const std::vector<std::string> roles = [] {
    std::vector<std::string> names = {"template", "mutator",  "diagnoser", "retriever",
                                      "refiner",  "rewinder", "distiller"};
    names.insert(names.end(), hooked_roles().begin(), hooked_roles().end());
    return names;
  }();
  return roles;
}

std::filesystem::path builtin_config_dir() {
  return std::filesystem::path(AOPT_SOURCE_DIR) / "config";
}

std::filesystem::path hardware_dir(const device_config& c) {
  return c.hardware_dir.empty() ? builtin_config_dir() / "hardware"
                                : std::filesystem::path(c.hardware_dir);
}

std::filesystem::path prompts_dir(const llm_config& c) {
  return c.prompts_dir.empty() ? builtin_config_dir() / "prompts"
                               : std::filesystem::path(c.prompts_dir);
}

nlohmann::json to_json(const aopt_config& c) {
  json out = json::object();
  for_each_section(
      [&](const char* section, auto&& fields) {
        table_writer w;
        fields(w);
        out[section] = w.take();
      },
      c);
  json roles = json::object();
  for (const auto& [name, rc] : c.roles) {
    table_writer w;
    role_fields(w, rc, name);
    roles[name] = w.take();
    for (const auto& [key, value] : rc.settings.items()) roles[name][key] = value;
  }
  out[roles_section] = std::move(roles);
  return out;
}

result<aopt_config> from_json(const nlohmann::json& j) {
  if (!j.is_object()) return invalid_argument("config: expected a table, got " + describe(j));
  aopt_config c;
  std::set<std::string> sections = {roles_section};
  status error;
  for_each_section(
      [&](const char* section, auto&& fields) {
        sections.insert(section);
        auto it = j.find(section);
        if (!error.ok() || it == j.end()) return;
        if (!it->is_object()) {
          error = config_error(section, "expected a table, got " + describe(*it));
          return;
        }
        table_reader r(*it, section);
        fields(r);
        error = r.finish();
      },
      c);
  AOPT_RETURN_IF_ERROR(error);
  for (const auto& item : j.items())
    if (sections.count(item.key()) == 0) return config_error(item.key(), "unknown section");
  if (auto it = j.find(roles_section); it != j.end())
    AOPT_RETURN_IF_ERROR(read_roles(*it, c.roles));
  AOPT_RETURN_IF_ERROR(check_consistency(c));
  return c;
}

result<aopt_config> load_config(const std::filesystem::path& file,
                                const std::vector<std::string>& overrides) {
  auto merged = read_toml_file(builtin_config_dir() / "aopt.toml");
  if (!merged.ok()) return merged.error();
  if (!file.empty()) {
    auto user = read_toml_file(file);
    if (!user.ok()) return user.error();
    merge_into(*merged, *user);
  }
  for (const auto& text : overrides) AOPT_RETURN_IF_ERROR(apply_override(*merged, text));
  return from_json(*merged);
}

}  // namespace aopt::config
