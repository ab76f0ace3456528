#include "config/aopt_config.hpp"

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

namespace {

using aopt::status_code;
using nlohmann::json;
namespace cfg = aopt::config;

std::filesystem::path write_file(const aopt::testing::temp_dir& dir, const std::string& text) {
  auto path = dir.path() / "user.toml";
  std::ofstream(path) << text;
  return path;
}

// The error message of loading `overrides` over the defaults; "" when it loaded.
std::string set_error(const std::vector<std::string>& overrides) {
  auto c = cfg::load_config({}, overrides);
  return c.ok() ? std::string() : c.error().message();
}

std::string file_error(const std::string& text) {
  aopt::testing::temp_dir dir;
  auto c = cfg::load_config(write_file(dir, text), {});
  return c.ok() ? std::string() : c.error().message();
}

// A config in which every field differs from its default.
cfg::aopt_config every_field_changed() {
  cfg::aopt_config c;
  auto& cam = c.campaign;
  cam.strategy = cfg::strategy::best_of_n;
  cam.budget = 7;
  cam.rounds = 3;
  cam.stage1_steps = 2;
  cam.stage2_steps = 9;
  cam.stage2_adaptive = false;
  cam.jobs = 5;
  cam.seed = 1234567890123ULL;
  cam.population = 12;
  cam.elite = 4;
  c.stage1.probe_tilings = false;
  auto& dev = c.device;
  dev.kind = cfg::device_kind::cann;
  dev.profile = "ascend910b3";
  dev.hardware_dir = "/opt/hw";
  dev.slots = 8;
  dev.timeout_s = 12.5;
  dev.compile_timeout_s = 33.25;
  dev.input_sets = 5;
  dev.repetitions = 7;
  dev.detect_races = false;
  dev.auto_sync = false;
  dev.noise_stddev = 0.125;
  dev.work_dir = "/scratch";
  dev.keep_scratch = true;
  dev.lift_tiling_constants = false;
  dev.confirm_improvements = false;
  dev.cpu_seconds = 30;
  dev.address_space_mb = 1024;
  c.storage.db = "/var/lib/aopt";
  auto& llm = c.llm;
  llm.base_url = "https://api.example.com/v1";
  llm.model = "deepseek-chat";
  llm.api_key_env = "DEEPSEEK_KEY";
  llm.embedding_model = "bge-m3";
  llm.timeout_s = 45.5;
  llm.connect_timeout_s = 2.5;
  llm.verify_tls = false;
  llm.max_concurrency = 16;
  llm.requests_per_minute = 120;
  llm.temperature = 1.25;
  llm.max_tokens = 2048;
  llm.max_retries = 2;
  llm.backoff_initial_ms = 50;
  llm.backoff_max_ms = 500;
  llm.cache = cfg::cache_mode::read;
  llm.budget_tokens = 1000000;
  llm.prompts_dir = "/etc/aopt/prompts";
  llm.extra_headers = {{"X-Title", "aopt"}, {"X-Org", "npu team"}};
  llm.price_per_1k_prompt = 0.25;
  llm.price_per_1k_completion = 1.5;
  for (auto& [name, role] : c.roles) role.policy = cfg::policy_kind::llm;
  c.roles["retriever"].top_k = 8;
  c.pipeline.stage1 = {"template", "mutator"};
  c.pipeline.stage2 = {"retriever", "refiner"};
  // Hooked roles are checked against the role table when a campaign builds them, not here.
  c.pipeline.annotators = {"an-annotator"};
  c.pipeline.gates = {"a-gate", "another-gate"};
  c.pipeline.verifiers = {"a-verifier"};
  c.pipeline.observers = {"an-observer"};
  c.bank.significance = 0.1;
  c.bank.dedup_threshold = 0.75;
  c.bank.index = cfg::index_kind::hnsw;
  auto& srv = c.server;
  srv.listen = "[::1]:9000";
  srv.token_env = "MY_TOKEN";
  srv.roots = {"/ops", "/more ops"};
  srv.max_body_bytes = 4096;
  srv.max_header_bytes = 2048;
  srv.shutdown_timeout_s = 5.5;
  srv.max_connections = 64;
  c.report.dir = "/reports";
  c.report.formats = {cfg::report_format::html};
  auto& cann = c.cann;
  cann.build = "make";
  cann.install = "";
  cann.run = "./run {work_dir}";
  cann.profile = "msprof op ./run";
  cann.flush = "./flush";
  cann.flush_bytes = 1024;
  cann.cann_version = "";
  cann.driver_version = "";
  cann.device_ids = {"2", "3"};
  cann.warmup_runs = 5;
  cann.min_samples = 4;
  cann.max_samples = 40;
  cann.time_budget_s = 12.5;
  cann.finalist_factor = 2;
  cann.remeasure_top = 5;
  cann.epsilon = 0.05;
  cann.confidence = 0.9;
  cann.baseline_every = 4;
  cann.drift_threshold = 0.1;
  cann.measurements_file = "m.jsonl";
  c.cascade.margin = 0.25;
  c.workers.listen = "127.0.0.1:0";
  c.workers.secret_env = "MY_WORKERS_SECRET";
  c.workers.heartbeat_s = 0.5;
  c.workers.heartbeat_timeout_s = 3;
  c.workers.rejoin_s = 7;
  c.workers.package_cache = 9;
  return c;
}

// section.key or roles.<role>.key -> value, for every key; with `expand_maps` the entries of
// llm.extra_headers are keys of their own (llm.extra_headers.<name>).
void collect_leaves(const json& j, const std::string& prefix, bool expand_maps,
                    std::map<std::string, json>& out) {
  for (const auto& item : j.items()) {
    std::string key = prefix.empty() ? item.key() : prefix + "." + item.key();
    bool is_map = key == "llm.extra_headers";
    if (item.value().is_object() && (!is_map || expand_maps))
      collect_leaves(item.value(), key, expand_maps, out);
    else
      out[key] = item.value();
  }
}

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("the defaults file loads and equals the in-class defaults") {
    auto c = cfg::load_config({}, {});
    REQUIRE_MESSAGE(c.ok(), c.error().to_string());
    CHECK(*c == cfg::aopt_config{});
    CHECK(c->campaign.budget == 40);
    CHECK(c->campaign.rounds == 4);
    CHECK(c->device.slots == 2);
    CHECK(c->device.input_sets == 3);
    CHECK(c->storage.db == ".aopt/db");
    CHECK(c->server.listen == "127.0.0.1:8742");
    CHECK(c->bank.significance == doctest::Approx(0.05));
    CHECK(c->roles.size() == cfg::known_roles().size());
    CHECK(c->roles.at("retriever").top_k == 3);
    CHECK(c->pipeline.stage2 == std::vector<std::string>{"diagnoser", "retriever", "refiner"});
  }

  TEST_CASE("every key of the defaults file has a comment right above it or its group") {
    std::ifstream in(cfg::builtin_config_dir() / "aopt.toml");
    REQUIRE(in);
    std::regex key_line(R"(^[a-z_0-9]+ = .*)");
    std::string line, previous;
    int keys = 0;
    while (std::getline(in, line)) {
      if (std::regex_match(line, key_line)) {
        ++keys;
        INFO("key line: " << line);
        CHECK(previous.rfind("#", 0) == 0);
      }
      previous = line;
    }
    CHECK(keys > 60);
  }

  TEST_CASE("a user file overrides only the keys it names") {
    aopt::testing::temp_dir dir;
    auto file = write_file(dir,
                           "[campaign]\nbudget = 12\nstrategy = \"stage2\"\n"
                           "[roles.retriever]\ntop_k = 5\n"
                           "[llm.extra_headers]\nX-Title = \"aopt\"\n");
    auto c = cfg::load_config(file, {});
    REQUIRE_MESSAGE(c.ok(), c.error().to_string());
    CHECK(c->campaign.budget == 12);
    CHECK(c->campaign.strategy == cfg::strategy::stage2);
    CHECK(c->campaign.rounds == 4);
    CHECK(c->roles.at("retriever").top_k == 5);
    CHECK(c->roles.at("retriever").policy == cfg::policy_kind::heuristic);
    CHECK(c->llm.extra_headers == std::map<std::string, std::string>{{"X-Title", "aopt"}});
  }

  TEST_CASE("--set overrides apply after the file, in order, with TOML values or bare words") {
    aopt::testing::temp_dir dir;
    auto file = write_file(dir, "[campaign]\nbudget = 12\n");
    auto c = cfg::load_config(file, {
                                        "campaign.budget=30",
                                        "campaign.budget=31",
                                        "campaign.strategy=stage1",
                                        "llm.base_url=https://api.deepseek.com/v1",
                                        "llm.model=deepseek-chat",
                                        "llm.api_key_env=\"KEY\"",
                                        "llm.temperature=0.2",
                                        "llm.max_tokens=100",
                                        "llm.verify_tls=false",
                                        "llm.extra_headers.X-Org=my team",
                                        "roles.mutator.policy=llm",
                                        "report.formats=[\"json\"]",
                                        "device.profile=910",
                                    });
    REQUIRE_MESSAGE(c.ok(), c.error().to_string());
    CHECK(c->campaign.budget == 31);
    CHECK(c->campaign.strategy == cfg::strategy::stage1);
    CHECK(c->llm.base_url == "https://api.deepseek.com/v1");
    CHECK(c->llm.model == "deepseek-chat");
    CHECK(c->llm.api_key_env == "KEY");
    CHECK(c->llm.temperature == doctest::Approx(0.2));
    CHECK(c->llm.max_tokens == 100);
    CHECK_FALSE(c->llm.verify_tls);
    CHECK(c->llm.extra_headers.at("X-Org") == "my team");
    CHECK(c->roles.at("mutator").policy == cfg::policy_kind::llm);
    CHECK(c->report.formats == std::vector<cfg::report_format>{cfg::report_format::json});
    // A number given for a string key is taken as the text the user typed.
    CHECK(c->device.profile == "910");
  }

  TEST_CASE("unknown sections, keys and roles are rejected naming them") {
    CHECK(file_error("[campain]\nbudget = 3\n") == "config: campain: unknown section");
    CHECK(set_error({"campaign.budgt=3"}) == "config: campaign.budgt: unknown key");
    CHECK(file_error("[device]\nslot = 3\n") == "config: device.slot: unknown key");
    CHECK(set_error({"roles.verifier.policy=llm"})
              .rfind("config: roles.verifier: unknown role (known: template, mutator", 0) == 0);
    CHECK(set_error({"roles.mutator.top_k=3"}) == "config: roles.mutator.top_k: unknown key");
    CHECK(set_error({"roles.mutator.temperature=1"}) ==
          "config: roles.mutator.temperature: unknown key");
  }

  TEST_CASE("values of the wrong type name the key and the expected type") {
    CHECK(set_error({"campaign.budget=\"many\""}) ==
          "config: campaign.budget: expected an integer, got string \"many\"");
    CHECK(set_error({"campaign.budget=lots"}) ==
          "config: campaign.budget: expected an integer, got string \"lots\"");
    CHECK(set_error({"campaign.budget=2.5"}) ==
          "config: campaign.budget: expected an integer, got number 2.5");
    CHECK(set_error({"llm.temperature=hot"}) ==
          "config: llm.temperature: expected a number, got string \"hot\"");
    CHECK(set_error({"device.detect_races=1"}) ==
          "config: device.detect_races: expected a boolean, got integer 1");
    CHECK(set_error({"pipeline.stage2=\"refiner\""}) ==
          "config: pipeline.stage2: expected an array of strings, got string \"refiner\"");
    CHECK(set_error({"pipeline.stage2=[\"refiner\", 3]"}) ==
          "config: pipeline.stage2[1]: expected a string, got integer 3");
    CHECK(set_error({"llm.extra_headers.X=[1]"}) ==
          "config: llm.extra_headers.X: expected a string, got array");
    CHECK(file_error("campaign = 3\n") == "config: campaign: expected a table, got integer 3");
    CHECK(file_error("[llm]\nextra_headers = 3\n") ==
          "config: llm.extra_headers: expected a table of strings, got integer 3");
    CHECK(file_error("roles = 1\n") == "config: roles: expected a table, got integer 1");
    CHECK(file_error("[roles]\nmutator = 1\n") ==
          "config: roles.mutator: expected a table, got integer 1");
  }

  TEST_CASE("values out of range name the key, the rule and the value") {
    CHECK(set_error({"campaign.budget=0"}) == "config: campaign.budget: must be >= 1, got 0");
    CHECK(set_error({"campaign.jobs=-2"}) == "config: campaign.jobs: must be >= 1, got -2");
    CHECK(set_error({"device.slots=5000000000"}) ==
          "config: device.slots: must be <= 4294967295, got 5000000000");
    CHECK(set_error({"workers.heartbeat_s=5", "workers.heartbeat_timeout_s=5"}) ==
          "config: workers.heartbeat_timeout_s: must be greater than workers.heartbeat_s, or "
          "every worker is dropped");
    CHECK(set_error({"workers.listen=somehost"}).find("config: workers.listen: expected") == 0);
    CHECK(set_error({"llm.temperature=3"}) ==
          "config: llm.temperature: must be >= 0.0 and <= 2.0, got 3.0");
    CHECK(set_error({"device.timeout_s=0"}) == "config: device.timeout_s: must be > 0.0, got 0.0");
    CHECK(set_error({"bank.significance=1.0"}) ==
          "config: bank.significance: must be > 0.0 and < 1.0, got 1.0");
    CHECK(set_error({"device.address_space_mb=10"}) ==
          "config: device.address_space_mb: must be >= 64, got 10");
    CHECK(set_error({"device.input_sets=2"}) == "config: device.input_sets: must be >= 3, got 2");
    CHECK(set_error({"storage.db=\"\""}) == "config: storage.db: must not be empty");
    CHECK(set_error({"server.roots=[\"\"]"}) == "config: server.roots[0]: must not be empty");
  }

  TEST_CASE("enumerations accept only their documented strings") {
    CHECK(set_error({"campaign.strategy=greedy"}) ==
          "config: campaign.strategy: must be one of \"alternating\", \"stage1\", \"stage2\", "
          "\"best_of_n\", \"evolve\", got \"greedy\"");
    CHECK(set_error({"device.kind=gpu"}) ==
          "config: device.kind: must be one of \"sim\", \"cann\", \"cascade\", got \"gpu\"");
    CHECK(set_error({"llm.cache=write"}) ==
          "config: llm.cache: must be one of \"off\", \"read\", \"readwrite\", got \"write\"");
    CHECK(set_error({"bank.index=faiss"}) ==
          "config: bank.index: must be one of \"linear\", \"hnsw\", got \"faiss\"");
    CHECK(set_error({"roles.refiner.policy=gpt"}) ==
          "config: roles.refiner.policy: must be one of \"heuristic\", \"llm\", got \"gpt\"");
    CHECK(set_error({"report.formats=[\"json\", \"pdf\"]"}) ==
          "config: report.formats[1]: must be one of \"json\", \"markdown\", \"html\", got "
          "\"pdf\"");
    CHECK(set_error({"report.formats=[\"json\", \"json\"]"}) ==
          "config: report.formats[1]: \"json\" is listed twice");
  }

  TEST_CASE("rules across keys are checked") {
    CHECK(set_error({"campaign.elite=0"}) == "config: campaign.elite: must be >= 1, got 0");
    CHECK(set_error({"campaign.elite=9"}) ==
          "config: campaign.elite: must be <= campaign.population (8), got 9");
    CHECK(set_error({"campaign.stage1_steps=0", "campaign.stage2_steps=0"})
              .rfind("config: campaign.stage1_steps: stage1_steps and stage2_steps are both 0",
                     0) == 0);
    CHECK(set_error({"campaign.strategy=stage2", "campaign.stage2_steps=0"}) ==
          "config: campaign.stage2_steps: must be >= 1 for strategy \"stage2\", got 0");
    CHECK(set_error({"roles.refiner.policy=llm"}) ==
          "config: llm.model: must be set because roles.refiner.policy is \"llm\"");
    CHECK(set_error({"roles.retriever.policy=llm", "llm.model=m"}) ==
          "config: llm.embedding_model: must be set because roles.retriever.policy is \"llm\"");
    CHECK(set_error({"llm.base_url=ftp://x"}) ==
          "config: llm.base_url: must start with \"http://\" or \"https://\", got \"ftp://x\"");
    CHECK(set_error({"llm.backoff_max_ms=10"}) ==
          "config: llm.backoff_max_ms: must be >= llm.backoff_initial_ms (1000), got 10");
    CHECK(set_error({"pipeline.stage2=[\"diagnoser\", \"verifier\"]"})
              .rfind("config: pipeline.stage2[1]: unknown role \"verifier\"", 0) == 0);
    CHECK(set_error({"pipeline.stage1=[]"}) ==
          "config: pipeline.stage1: must name at least one role");
    CHECK(set_error({"pipeline.stage1=[\"mutator\", \"mutator\"]"}) ==
          "config: pipeline.stage1[1]: \"mutator\" is listed twice");
    CHECK(set_error({"server.listen=localhost"}).rfind("config: server.listen: expected", 0) == 0);
    CHECK(set_error({"server.listen=host:70000"}).rfind("config: server.listen: expected", 0) == 0);
    CHECK(set_error({"server.listen=[::1]:0"}).empty());
    CHECK(set_error({"llm.extra_headers.X-A=\"a\\r\\nInjected: 1\""}) ==
          "config: llm.extra_headers.X-A: must not contain a line break");
  }

  TEST_CASE("files and overrides that cannot be read are reported with where") {
    aopt::testing::temp_dir dir;
    auto missing = cfg::load_config(dir.path() / "nope.toml", {});
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == status_code::not_found);
    CHECK(missing.error().message().find("nope.toml: no such file") != std::string::npos);

    auto file = write_file(dir, "[campaign]\nbudget = = 3\n");
    auto broken = cfg::load_config(file, {});
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error().code() == status_code::invalid_argument);
    CHECK(broken.error().message().rfind("config: " + file.string() + ":2:", 0) == 0);

    CHECK(file_error("[campaign]\nbudget = 1979-05-27\n")
              .find(":2:10: dates and times are not "
                    "supported") != std::string::npos);
    CHECK(set_error({"campaign.budget"}) ==
          "config: --set 'campaign.budget': expected section.key=value");
    CHECK(set_error({"budget=3"}) == "config: --set 'budget=3': expected section.key=value");
    CHECK(set_error({"campaign..budget=3"}) ==
          "config: --set 'campaign..budget=3': expected section.key=value");
    CHECK(set_error({"campaign.budget.x=3"}) ==
          "config: --set 'campaign.budget.x=3': campaign.budget is no table");
  }

  TEST_CASE("every field round-trips through JSON") {
    auto changed = every_field_changed();
    auto j = cfg::to_json(changed);
    auto back = cfg::from_json(j);
    REQUIRE_MESSAGE(back.ok(), back.error().to_string());
    CHECK(*back == changed);
    CHECK(cfg::to_json(*back) == j);

    // The changed config differs from the defaults in every key, so no field escaped the test.
    std::map<std::string, json> defaults, changed_leaves;
    collect_leaves(cfg::to_json(cfg::aopt_config{}), "", false, defaults);
    collect_leaves(j, "", false, changed_leaves);
    for (const auto& [key, value] : defaults) {
      INFO("key: " << key);
      REQUIRE(changed_leaves.count(key) == 1);
      CHECK(changed_leaves.at(key) != value);
    }
  }

  TEST_CASE("stage1.probe_tilings is on by default and a file or --set turns it off") {
    auto defaults = cfg::load_config({}, {});
    REQUIRE(defaults.ok());
    CHECK(defaults->stage1.probe_tilings);
    auto off = cfg::load_config({}, {"stage1.probe_tilings=false"});
    REQUIRE_MESSAGE(off.ok(), off.error().to_string());
    CHECK_FALSE(off->stage1.probe_tilings);
    aopt::testing::temp_dir dir;
    auto from_file = cfg::load_config(write_file(dir, "[stage1]\nprobe_tilings = false\n"), {});
    REQUIRE_MESSAGE(from_file.ok(), from_file.error().to_string());
    CHECK_FALSE(from_file->stage1.probe_tilings);
    CHECK(set_error({"stage1.probe_tilings=\"no\""}) ==
          "config: stage1.probe_tilings: expected a boolean, got string \"no\"");
    CHECK(set_error({"stage1.probe=false"}) == "config: stage1.probe: unknown key");
  }

  TEST_CASE("every key is settable with --set") {
    auto changed = every_field_changed();
    std::map<std::string, json> leaves;
    collect_leaves(cfg::to_json(changed), "", true, leaves);
    std::vector<std::string> overrides;
    for (const auto& [key, value] : leaves) overrides.push_back(key + "=" + value.dump());
    auto c = cfg::load_config({}, overrides);
    REQUIRE_MESSAGE(c.ok(), c.error().to_string());
    CHECK(cfg::to_json(*c) == cfg::to_json(changed));
  }

  TEST_CASE("JSON snapshots keep defaults for missing keys and reject unknown ones") {
    auto partial = cfg::from_json(json{{"campaign", {{"budget", 9}}}});
    REQUIRE(partial.ok());
    CHECK(partial->campaign.budget == 9);
    CHECK(partial->campaign.rounds == 4);
    CHECK(partial->roles.at("retriever").top_k == 3);

    auto unknown = cfg::from_json(json{{"campaign", {{"budget", 9}, {"colour", "red"}}}});
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message() == "config: campaign.colour: unknown key");
    CHECK_FALSE(cfg::from_json(json::array()).ok());
  }

  TEST_CASE("enum strings round-trip") {
    for (auto s : {cfg::strategy::alternating, cfg::strategy::stage1, cfg::strategy::stage2,
                   cfg::strategy::best_of_n, cfg::strategy::evolve}) {
      cfg::strategy back{};
      REQUIRE(cfg::parse(cfg::to_string(s), back));
      CHECK(back == s);
    }
    cfg::cache_mode mode = cfg::cache_mode::off;
    CHECK_FALSE(cfg::parse("sometimes", mode));
    CHECK(mode == cfg::cache_mode::off);
  }

  TEST_CASE("built-in folders are used when the path keys are empty") {
    cfg::aopt_config c;
    CHECK(cfg::hardware_dir(c.device) == cfg::builtin_config_dir() / "hardware");
    CHECK(cfg::prompts_dir(c.llm) == cfg::builtin_config_dir() / "prompts");
    c.device.hardware_dir = "/hw";
    CHECK(cfg::hardware_dir(c.device) == "/hw");
  }
}
