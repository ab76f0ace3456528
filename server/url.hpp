// Request targets ("/api/v1/bank?q=double%20buffer&limit=5") split into decoded path segments
// and query parameters.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"

namespace aopt::server {

struct request_target {
  std::vector<std::string> segments;         // decoded, empty segments dropped: "/a//b/" -> {a, b}
  std::map<std::string, std::string> query;  // the last value wins for a repeated key
};

// Errors: invalid_argument for a malformed percent escape, an encoded NUL or '/' inside a
// segment, a "." / ".." segment, or a decoded segment, key or value that is not UTF-8 (every
// name the API knows is UTF-8, and the decoded text ends up in JSON answers and logs).
result<std::string> percent_decode(std::string_view text, bool plus_is_space);
result<request_target> parse_target(std::string_view target);

}  // namespace aopt::server
