// The hooked roles a configuration names (runtime/hooked_roles.hpp): every role of the table is
// refused under a hook it does not serve, naming the entry and both hooks; an unknown name is
// refused listing the roles there are; a role's own settings are checked by its schema.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/roles/role_table.hpp"
#include "base/subprocess.hpp"
#include "config/aopt_config.hpp"
#include "runtime/hooked_roles.hpp"

namespace {

std::string check(const std::vector<std::string>& sets) {
  auto cfg = aopt::config::load_config("", sets);
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  aopt::status s = aopt::runtime::check_hooked_roles(*cfg);
  return s.ok() ? std::string() : s.message();
}

const char* list_of(aopt::agent::hook_kind k) {
  return aopt::agent::pipeline_list(k);
}

}  // namespace

TEST_CASE("the default pipeline's hooked roles, its gates and its verifiers, pass") {
  auto cfg = aopt::config::load_config("", {});
  REQUIRE(cfg.ok());
  CHECK(cfg->pipeline.annotators.empty());
  CHECK(cfg->pipeline.gates == std::vector<std::string>{"depth_screen", "tiling_probe"});
  CHECK(cfg->pipeline.verifiers ==
        std::vector<std::string>{"improvement_confirmation", "validation"});
  CHECK(cfg->pipeline.observers.empty());
  CHECK(check({}).empty());
}

TEST_CASE("a resumed episode's roles run although today's pipeline leaves them out") {
  aopt::config::pipeline_config today;
  today.gates = {"critic"};
  aopt::agent::episode_config before;  // a state written before the depth screen was a gate
  before.gates = {"depth_screen", "critic"};
  before.annotators = {"profiler"};
  aopt::agent::episode_config same;
  same.gates = {"critic"};
  const aopt::config::pipeline_config spawned =
      aopt::runtime::with_resumed_roles(today, {before, same});
  CHECK(spawned.gates == std::vector<std::string>{"critic", "depth_screen"});
  CHECK(spawned.annotators == std::vector<std::string>{"profiler"});
  CHECK(spawned.observers.empty());
  CHECK(spawned.stage2 == today.stage2);
  CHECK(aopt::runtime::with_resumed_roles(today, {same}).gates == today.gates);
}

TEST_CASE("an unknown hooked role is refused, naming the entry and the roles there are") {
  const std::string error = check({"pipeline.gates=[\"verifier\"]"});
  CHECK(error.rfind("config: pipeline.gates[0]: no hooked role named \"verifier\" (hooked: ", 0) ==
        0);
  for (const auto& d : aopt::agent::role_descriptors()) {
    CHECK(error.find(d.name) != std::string::npos);
  }
}

TEST_CASE("every role of the table passes under its own hook and is refused under another") {
  for (const auto& d : aopt::agent::role_descriptors()) {
    CAPTURE(d.name);
    CHECK(d.make);
    CHECK(check({std::string("pipeline.") + list_of(d.hook) + "=[\"" + d.name + "\"]"}).empty());
    for (auto other : {aopt::agent::hook_kind::annotate, aopt::agent::hook_kind::gate,
                       aopt::agent::hook_kind::verify, aopt::agent::hook_kind::observe}) {
      if (other == d.hook) continue;
      const std::string error =
          check({std::string("pipeline.") + list_of(other) + "=[\"" + d.name + "\"]"});
      CHECK(error == std::string("config: pipeline.") + list_of(other) + "[0]: \"" + d.name +
                         "\" serves the " + aopt::agent::to_string(d.hook) + " hook, not " +
                         aopt::agent::to_string(other));
    }
    const std::string unknown =
        check({std::string("pipeline.") + list_of(d.hook) + "=[\"" + d.name + "\"]",
               "roles." + d.name + ".no_such_key=1"});
    CHECK(unknown.find("roles." + d.name + ".no_such_key: unknown key") != std::string::npos);
    if (!d.has_llm_policy) {
      CHECK(check({std::string("pipeline.") + list_of(d.hook) + "=[\"" + d.name + "\"]",
                   "roles." + d.name + ".policy=\"llm\"", "llm.model=m"}) ==
            "config: roles." + d.name + ".policy: the " + d.name + " role has no LLM policy");
    }
  }
}

TEST_CASE("aopt roles lists every role of the table with its hook and settings") {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY, "roles", "--json"};
  o.limits.wall_seconds = 60;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  REQUIRE_MESSAGE(r->exit_code == 0, r->stderr_text);
  nlohmann::json listed;
  REQUIRE_NOTHROW(listed = nlohmann::json::parse(r->stdout_text));
  const auto table = aopt::agent::role_descriptors();
  REQUIRE(listed.size() == table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    CHECK(listed[i].at("name") == table[i].name);
    CHECK(listed[i].at("hook") == aopt::agent::to_string(table[i].hook));
    CHECK(listed[i].at("pipeline") == std::string("pipeline.") + list_of(table[i].hook));
    CHECK(listed[i].at("settings").size() == table[i].settings.size());
  }
}
