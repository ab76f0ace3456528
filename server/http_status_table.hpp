// The one table from a failure to the HTTP status it is answered with. Every error response of
// `aopt serve` goes through it (api_router.hpp's error_response): an aopt::status by its code,
// and the failures that belong to the HTTP layer itself, which no status_code names, by their
// request_failure. No handler picks a 4xx/5xx status of its own.
//
// Thread-safety: pure functions.
#pragma once

#include <boost/beast/http/status.hpp>

#include "base/status.hpp"

namespace aopt::server {

// Failures of a request as HTTP, before or besides what a route's status says.
enum class request_failure {
  unauthenticated,     // no valid bearer token (answered with WWW-Authenticate: Bearer)
  forbidden,           // a path outside the daemon's roots, or a package file linking out of it
  method_not_allowed,  // the route exists but not with this method
  body_too_large,      // server.max_body_bytes
  headers_too_large,   // server.max_header_bytes
};

boost::beast::http::status http_status_of(status_code code);
boost::beast::http::status http_status_of(request_failure failure);

}  // namespace aopt::server
