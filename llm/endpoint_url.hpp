// The parsed base URL of an endpoint: "https://api.example.com/v1" -> scheme, host, port, path.
//
// Thread-safety: value type; parse_endpoint_url is reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.hpp"

namespace aopt::llm {

struct endpoint_url {
  std::string scheme;  // "http" or "https"
  std::string host;    // a name or an address; an IPv6 address without brackets
  uint16_t port = 0;   // the explicit port, else 80 / 443
  std::string path;    // without a trailing slash: "/v1", or "" for the root

  bool tls() const { return scheme == "https"; }
  // The Host header: host, bracketed if IPv6, with ":port" unless it is the scheme's default.
  std::string host_header() const;
  // The request target of `suffix` ("/chat/completions") under the base path.
  std::string target(std::string_view suffix) const;
  // "scheme://host:port/path", the port always spelled out.
  std::string to_string() const;
};

// invalid_argument naming the problem for anything but http(s)://host[:port][/path]. URLs
// with credentials ("user:pass@") are refused without echoing them.
result<endpoint_url> parse_endpoint_url(std::string_view text);

}  // namespace aopt::llm
