// An address aopt listens on ("host:port", IPv6 as "[addr]:port": `aopt serve`'s HTTP API, the
// evaluation workers' listener) and whether it is a loopback address, which decides if a bearer
// token or a workers' secret is required.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.hpp"

namespace aopt {

struct listen_address {
  std::string host;   // an IP address literal or "localhost"
  uint16_t port = 0;  // 0 = the OS picks one

  std::string to_string() const;
};

// Errors: invalid_argument naming the text and what is wrong with it.
result<listen_address> parse_listen_address(const std::string& text);

// True for 127.0.0.0/8, ::1, IPv4-mapped loopback and "localhost"; false for anything else,
// including 0.0.0.0 and ::, which listen on every interface.
bool is_loopback(const std::string& host);

}  // namespace aopt
