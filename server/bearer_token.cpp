#include "server/bearer_token.hpp"

namespace aopt::server {

bearer_token resolve_bearer_token(const config::server_config& config, const char* env_value) {
  if (env_value != nullptr && *env_value != '\0') return {env_value, "$" + config.token_env};
  if (!config.token.empty()) return {config.token, "server.token"};
  return {};
}

}  // namespace aopt::server
