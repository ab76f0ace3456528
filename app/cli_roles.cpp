// `aopt roles [--json]`: the hooked roles this build has (agent/roles/, docs/roles.md), read from
// the role table: each role's name, hook, what it does, whether it has an LLM policy and its
// prompts, and the [roles.<name>] settings its schema takes with their types and defaults.
//
// Exit status: 0.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "agent/roles/role_table.hpp"
#include "app/cli_commands.hpp"

namespace aopt::runtime {

namespace {

int run_roles(bool json) {
  const std::vector<agent::role_descriptor> table = agent::role_descriptors();
  nlohmann::json out = nlohmann::json::array();
  for (const agent::role_descriptor& d : table) {
    nlohmann::json settings = nlohmann::json::array();
    for (const agent::role_setting& s : d.settings) {
      settings.push_back({{"key", s.key},
                          {"type", agent::to_string(s.type)},
                          {"default", s.default_value},
                          {"meaning", s.meaning}});
    }
    out.push_back({{"name", d.name},
                   {"hook", agent::to_string(d.hook)},
                   {"pipeline", std::string("pipeline.") + agent::pipeline_list(d.hook)},
                   {"summary", d.summary},
                   {"llm_policy", d.has_llm_policy},
                   {"prompts", d.prompts},
                   {"settings", settings}});
  }
  if (json) {
    std::cout << out.dump(2) << std::endl;
    return 0;
  }
  for (const nlohmann::json& r : out) {
    fmt::print("{} ({}, in {}): {}\n", r["name"].get<std::string>(), r["hook"].get<std::string>(),
               r["pipeline"].get<std::string>(), r["summary"].get<std::string>());
    fmt::print("  roles.{}.policy: \"heuristic\"{}\n", r["name"].get<std::string>(),
               r["llm_policy"].get<bool>() ? " or \"llm\"" : "");
    for (const nlohmann::json& s : r["settings"]) {
      fmt::print("  roles.{}.{} ({}, default {}): {}\n", r["name"].get<std::string>(),
                 s["key"].get<std::string>(), s["type"].get<std::string>(), s["default"].dump(),
                 s["meaning"].get<std::string>());
    }
  }
  return 0;
}

}  // namespace

void add_roles_command(CLI::App& app, cli_context& ctx) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "roles",
      "List the hooked roles this build has (docs/roles.md): hook, pipeline key, settings. Exit "
      "status: 0.");
  cmd->add_flag("--json", *json, "Print one JSON array");
  cmd->callback([json, &ctx] { ctx.exit_code = run_roles(*json); });
}

}  // namespace aopt::runtime
