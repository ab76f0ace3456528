#include "agent/roles/role_table.hpp"

namespace aopt::agent {

const role_descriptor* find_role(const std::vector<role_descriptor>& table,
                                 const std::string& name) {
  for (const role_descriptor& d : table) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::filesystem::path role_prompts_dir() {
  return config::builtin_config_dir().parent_path() / "agent" / "roles";
}

}  // namespace aopt::agent
