#include "runtime/hooked_roles.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "agent/roles/role_table.hpp"
#include "llm/prompt_library.hpp"

namespace aopt::runtime {
namespace {

struct named_entry {
  std::string key;  // "pipeline.gates[0]"
  std::string role;
  agent::hook_kind hook;
};

const std::vector<std::string>& roles_of(const config::pipeline_config& pipeline,
                                         agent::hook_kind hook) {
  switch (hook) {
    case agent::hook_kind::annotate:
      return pipeline.annotators;
    case agent::hook_kind::gate:
      return pipeline.gates;
    case agent::hook_kind::verify:
      return pipeline.verifiers;
    case agent::hook_kind::observe:
      return pipeline.observers;
  }
  return pipeline.observers;
}

std::vector<named_entry> pipeline_entries(const config::aopt_config& config) {
  std::vector<named_entry> out;
  for (agent::hook_kind hook : {agent::hook_kind::annotate, agent::hook_kind::gate,
                                agent::hook_kind::verify, agent::hook_kind::observe}) {
    const std::vector<std::string>& roles = roles_of(config.pipeline, hook);
    for (size_t i = 0; i < roles.size(); ++i) {
      out.push_back(
          {fmt::format("pipeline.{}[{}]", agent::pipeline_list(hook), i), roles[i], hook});
    }
  }
  return out;
}

// The role's checked settings and policy, or why the configuration cannot build it.
result<agent::role_environment> environment_for(const agent::role_descriptor& role,
                                                const named_entry& entry,
                                                const config::aopt_config& config,
                                                agent::role_environment env) {
  if (role.hook != entry.hook) {
    return invalid_argument(fmt::format("config: {}: \"{}\" serves the {} hook, not {}", entry.key,
                                        entry.role, agent::to_string(role.hook),
                                        agent::to_string(entry.hook)));
  }
  const auto rc = config.roles.find(entry.role);
  const bool configured = rc != config.roles.end();
  if (configured) env.policy = rc->second.policy;
  result<nlohmann::json> settings =
      agent::check_role_settings(role, configured ? rc->second.settings : nlohmann::json());
  if (!settings.ok()) return settings.error();
  env.settings = std::move(*settings);
  if (env.policy == config::policy_kind::llm && !role.has_llm_policy) {
    return invalid_argument(fmt::format("config: roles.{}.policy: the {} role has no LLM policy",
                                        entry.role, entry.role));
  }
  return env;
}

}  // namespace

status check_hooked_roles(const config::aopt_config& config) {
  const std::vector<agent::role_descriptor> table = agent::role_descriptors();
  for (const named_entry& entry : pipeline_entries(config)) {
    const agent::role_descriptor* role = agent::find_role(table, entry.role);
    if (role == nullptr) {
      std::string known;
      for (const agent::role_descriptor& d : table) known += (known.empty() ? "" : ", ") + d.name;
      return invalid_argument(fmt::format("config: {}: no hooked role named \"{}\" (hooked: {})",
                                          entry.key, entry.role, known));
    }
    result<agent::role_environment> env = environment_for(*role, entry, config, {});
    if (!env.ok()) return env.error();
    if (env->policy != config::policy_kind::llm) continue;
    // The prompt checklist: the templates an LLM role renders exist, built in or the user's.
    std::vector<std::filesystem::path> folders = {agent::role_prompts_dir()};
    if (!config.llm.prompts_dir.empty()) folders.push_back(config::prompts_dir(config.llm));
    result<llm::prompt_library> prompts = llm::prompt_library::load(folders);
    if (!prompts.ok()) return prompts.error().with_context("llm.prompts_dir");
    for (const std::string& name : role->prompts) {
      if (prompts->find(name) == nullptr) {
        return not_found(
            fmt::format("config: roles.{}.policy = \"llm\": its prompt template "
                        "{}.md is in neither {} nor llm.prompts_dir",
                        entry.role, name, agent::role_prompts_dir().string()));
      }
    }
  }
  return status::ok_status();
}

config::pipeline_config with_resumed_roles(config::pipeline_config pipeline,
                                           const std::vector<agent::episode_config>& episodes) {
  auto add_missing = [](std::vector<std::string>& list, const std::vector<std::string>& asked) {
    for (const std::string& role : asked) {
      if (std::find(list.begin(), list.end(), role) == list.end()) list.push_back(role);
    }
  };
  for (const agent::episode_config& e : episodes) {
    add_missing(pipeline.annotators, e.annotators);
    add_missing(pipeline.gates, e.gates);
    add_missing(pipeline.verifiers, e.verifiers);
    add_missing(pipeline.observers, e.observers);
  }
  return pipeline;
}

result<std::vector<actors::hooked_role>> spawn_hooked_roles(
    caf::actor_system& sys, const config::aopt_config& config,
    const agent::role_environment& environment) {
  AOPT_RETURN_IF_ERROR(check_hooked_roles(config));
  const std::vector<agent::role_descriptor> table = agent::role_descriptors();
  std::vector<actors::hooked_role> out;
  std::set<std::string> spawned;
  for (const named_entry& entry : pipeline_entries(config)) {
    if (!spawned.insert(entry.role).second) continue;
    const agent::role_descriptor& role = *agent::find_role(table, entry.role);
    result<agent::role_environment> env = environment_for(role, entry, config, environment);
    if (!env.ok()) return env.error();
    if (env->policy == config::policy_kind::llm && !env->llm) {
      return invalid_argument("roles." + entry.role + ".policy = \"llm\" needs the LLM backend");
    }
    result<agent::hook_policy> policy = role.make(*env);
    if (!policy.ok()) return policy.error().with_context("roles." + entry.role);
    out.push_back({entry.role, actors::spawn_hook_role(sys, std::move(*policy))});
  }
  return out;
}

}  // namespace aopt::runtime
