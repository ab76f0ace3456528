// What a hooked role (agent/episode/hooks.hpp) says about itself, so that the rest of aopt needs
// no edit when one is added (docs/roles.md): its name, its hook, the schema of its
// [roles.<name>] settings, the prompt templates its LLM policy renders, and a factory.
//
// A role lives in agent/roles/<name>_role.cpp, which defines `role_descriptor
// describe_<name>_role()`; the build lists every such file in the role table (role_table.hpp),
// and configuration checking, the policy factory, the prompt checklist and shut-down read that
// table. The factory receives the role environment: what the campaign has that a role may use.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/hooks.hpp"
#include "agent/episode/tiling_feasibility.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "npu/sim/runtime/hw_profile.hpp"
#include "storage/store.hpp"

namespace aopt::agent {

enum class setting_type { boolean, integer, real, string };
// "boolean", "integer", "number", "string".
const char* to_string(setting_type t);

// One key of [roles.<name>] besides `policy`, which every role has.
struct role_setting {
  std::string key;
  setting_type type = setting_type::string;
  nlohmann::json default_value;
  std::string meaning;  // one line, for error messages and `aopt config`
};

// What the campaign offers a role's factory. Pointers outlive the role's policy.
struct role_environment {
  std::string campaign;
  config::policy_kind policy = config::policy_kind::heuristic;  // roles.<name>.policy
  // roles.<name>'s settings, checked against the descriptor's schema, defaults filled in.
  nlohmann::json settings = nlohmann::json::object();
  std::shared_ptr<llm_backend> llm;  // null unless some role's policy is "llm"
  storage::store* db = nullptr;
  const sim::hw_profile* hardware = nullptr;
  // Evaluations outside the episode's budget (a profiler's extra run): cached, slot-bounded.
  std::shared_ptr<evaluation_service> evaluation;
  uint32_t device_slots = 0;
  // Runs a tiling function alone and judges it (agent/episode/tiling_feasibility.hpp); empty
  // when the campaign probes nothing (stage1.probe_tilings = false, or its device cannot).
  tiling_screen tiling_probe;
};

struct role_descriptor {
  std::string name;
  hook_kind hook = hook_kind::gate;
  std::string summary;  // one line: what the role does
  std::vector<role_setting> settings;
  // Whether `policy = "llm"` is offered, and the templates that policy renders (each a file
  // <template>.md next to the role's source, or in llm.prompts_dir).
  bool has_llm_policy = false;
  std::vector<std::string> prompts;
  std::function<result<hook_policy>(const role_environment&)> make;
};

// `given` (the [roles.<name>] table without `policy`) checked against `role`'s schema: an
// unknown key or a value of the wrong type is invalid_argument naming "roles.<name>.<key>".
// Returns the settings with every default filled in.
result<nlohmann::json> check_role_settings(const role_descriptor& role,
                                           const nlohmann::json& given);

}  // namespace aopt::agent
