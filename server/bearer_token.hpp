// Where the daemon's bearer token comes from: the environment variable named by
// server.token_env when it is set and non-empty, else server.token. The environment wins so that
// whoever starts the daemon can override (rotate) a token kept in a shared config file without
// editing the file.
//
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "config/aopt_config.hpp"

namespace aopt::server {

struct bearer_token {
  std::string value;  // "" = no token
  std::string
      origin;  // where it came from, for messages ("$AOPT_TOKEN", "server.token"); "" = none
};

// `env_value`: the value of the variable named by config.token_env (nullptr when unset).
bearer_token resolve_bearer_token(const config::server_config& config, const char* env_value);

}  // namespace aopt::server
