#include "agent/llm_policies/llm_store_cache.hpp"

namespace aopt::agent {

result<std::optional<nlohmann::json>> store_response_cache::get(const std::string& key) {
  result<nlohmann::json> value = db_.get_llm_cache(key);
  if (value.ok()) return std::optional<nlohmann::json>(std::move(*value));
  if (value.error().code() == status_code::not_found) return std::optional<nlohmann::json>();
  return value.error();
}

status store_response_cache::put(const std::string& key, const nlohmann::json& value) {
  return db_.put_llm_cache(key, value);
}

}  // namespace aopt::agent
