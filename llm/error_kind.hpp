// Why an LLM call failed, as one enum the callers can branch on (a failed step is recorded with
// this reason) and as the first word of the status message ("http_429: ...").
//
// Persistent: to_string() values end up in candidate records and reports; do not rename them.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.hpp"

namespace aopt::llm {

enum class error_kind {
  none,              // the call succeeded
  invalid_request,   // cannot be sent as given (no model, no messages); a caller or config bug
  connect_error,     // resolve, connect or TLS failed, or the connection broke; retried
  timeout,           // no complete answer within the request timeout; not retried (see client)
  http_4xx,          // the endpoint refused the request (400, 401, 404, ...); not retried
  http_429,          // rate limited; retried honouring Retry-After, reported once retries ran out
  http_5xx,          // the endpoint failed; retried, reported once retries ran out
  malformed_body,    // a 2xx answer that is not the JSON the protocol promises
  empty_choice,      // a well-formed answer without any text to use
  truncated,         // finish_reason "length": the answer hit max_tokens
  budget_exhausted,  // the campaign's token budget is spent; the call was never sent
  cancelled,         // stopped on request (shutdown)
};

const char* to_string(error_kind kind);

// Inverse of to_string; nullopt for an unknown word.
std::optional<error_kind> parse_error_kind(std::string_view text);

// The aopt::status code that carries each kind (unavailable for transient endpoint failures,
// deadline_exceeded for timeout, resource_exhausted for budget and truncation, ...).
status_code to_status_code(error_kind kind);

// "<kind>: <detail>" with the code of the kind. REQUIRES: kind != none.
status make_error(error_kind kind, const std::string& detail);

}  // namespace aopt::llm
