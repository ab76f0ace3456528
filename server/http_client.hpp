// A small blocking HTTP/1.1 client for the `aopt` commands that talk to a running daemon
// (submit, status, pause, resume, cancel, watch), over plain TCP: the daemon listens on
// loopback by default, and a remote daemon belongs behind a TLS-terminating proxy.
//
// Thread-safety: functions with no shared state; one call per thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::server {

struct server_url {
  std::string host;
  std::string port;
  std::string base_path;  // "" or "/prefix" without a trailing '/'
};

// Parses "http://host:port[/prefix]". Errors: invalid_argument.
result<server_url> parse_server_url(const std::string& url);

struct client_response {
  int status = 0;
  std::string body;
  // The JSON body, or null when it is not JSON.
  nlohmann::json json() const;
  // The "error" of a JSON error body, else the body itself.
  std::string error_text() const;
};

// One request; `token` "" sends no Authorization header. Errors: unavailable when the daemon
// cannot be reached, deadline_exceeded after `timeout_s`.
result<client_response> http_call(const server_url& server, const std::string& method,
                                  const std::string& target, const std::string& body,
                                  const std::string& token, double timeout_s = 30);

struct sse_message {
  uint64_t id = 0;
  std::string type;
  std::string data;
};

// Reads GET `target` as a server-sent-event stream and calls `on_event` for each event until
// it returns false or the server ends the stream (ok either way). Errors: unavailable when the
// daemon cannot be reached; failed_precondition with the daemon's reason on a non-200 answer.
status read_event_stream(const server_url& server, const std::string& target,
                         const std::string& token,
                         const std::function<bool(const sse_message&)>& on_event);

}  // namespace aopt::server
