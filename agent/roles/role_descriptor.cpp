#include "agent/roles/role_descriptor.hpp"

#include <fmt/format.h>

namespace aopt::agent {
namespace {

bool has_type(const nlohmann::json& value, setting_type t) {
  switch (t) {
    case setting_type::boolean:
      return value.is_boolean();
    case setting_type::integer:
      return value.is_number_integer();
    case setting_type::real:
      return value.is_number();
    case setting_type::string:
      return value.is_string();
  }
  return false;
}

}  // namespace

const char* to_string(setting_type t) {
  switch (t) {
    case setting_type::boolean:
      return "boolean";
    case setting_type::integer:
      return "integer";
    case setting_type::real:
      return "number";
    case setting_type::string:
      return "string";
  }
  return "?";
}

result<nlohmann::json> check_role_settings(const role_descriptor& role,
                                           const nlohmann::json& given) {
  nlohmann::json out = nlohmann::json::object();
  for (const role_setting& s : role.settings) out[s.key] = s.default_value;
  if (given.is_null()) return out;
  if (!given.is_object()) return invalid_argument("roles." + role.name + ": expected a table");
  for (const auto& [key, value] : given.items()) {
    const std::string path = "roles." + role.name + "." + key;
    const role_setting* setting = nullptr;
    for (const role_setting& s : role.settings) {
      if (s.key == key) setting = &s;
    }
    if (setting == nullptr) {
      std::string known = "policy";
      for (const role_setting& s : role.settings) known += ", " + s.key;
      return invalid_argument(fmt::format("config: {}: unknown key (known: {})", path, known));
    }
    if (!has_type(value, setting->type)) {
      const char* article = setting->type == setting_type::integer ? "an" : "a";
      return invalid_argument(fmt::format("config: {}: expected {} {} ({}), got {}", path, article,
                                          to_string(setting->type), setting->meaning,
                                          value.dump()));
    }
    out[key] = value;
  }
  return out;
}

}  // namespace aopt::agent
