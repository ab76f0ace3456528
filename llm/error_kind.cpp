#include "llm/error_kind.hpp"

#include <array>

namespace aopt::llm {

namespace {

constexpr std::array<error_kind, 12> all_kinds = {
    error_kind::none,      error_kind::invalid_request,  error_kind::connect_error,
    error_kind::timeout,   error_kind::http_4xx,         error_kind::http_429,
    error_kind::http_5xx,  error_kind::malformed_body,   error_kind::empty_choice,
    error_kind::truncated, error_kind::budget_exhausted, error_kind::cancelled,
};

}  // namespace

const char* to_string(error_kind kind) {
  switch (kind) {
    case error_kind::none:
      return "none";
    case error_kind::invalid_request:
      return "invalid_request";
    case error_kind::connect_error:
      return "connect_error";
    case error_kind::timeout:
      return "timeout";
    case error_kind::http_4xx:
      return "http_4xx";
    case error_kind::http_429:
      return "http_429";
    case error_kind::http_5xx:
      return "http_5xx";
    case error_kind::malformed_body:
      return "malformed_body";
    case error_kind::empty_choice:
      return "empty_choice";
    case error_kind::truncated:
      return "truncated";
    case error_kind::budget_exhausted:
      return "budget_exhausted";
    case error_kind::cancelled:
      return "cancelled";
  }
  return "unknown";
}

std::optional<error_kind> parse_error_kind(std::string_view text) {
  for (error_kind kind : all_kinds)
    if (text == to_string(kind)) return kind;
  return std::nullopt;
}

status_code to_status_code(error_kind kind) {
  switch (kind) {
    case error_kind::none:
      return status_code::ok;
    case error_kind::invalid_request:
      return status_code::invalid_argument;
    case error_kind::connect_error:
      return status_code::unavailable;
    case error_kind::timeout:
      return status_code::deadline_exceeded;
    case error_kind::http_4xx:
      return status_code::failed_precondition;
    case error_kind::http_429:
      return status_code::unavailable;
    case error_kind::http_5xx:
      return status_code::unavailable;
    case error_kind::malformed_body:
      return status_code::internal;
    case error_kind::empty_choice:
      return status_code::internal;
    case error_kind::truncated:
      return status_code::resource_exhausted;
    case error_kind::budget_exhausted:
      return status_code::resource_exhausted;
    case error_kind::cancelled:
      return status_code::cancelled;
  }
  return status_code::internal;
}

status make_error(error_kind kind, const std::string& detail) {
  return {to_status_code(kind), std::string(to_string(kind)) + ": " + detail};
}

}  // namespace aopt::llm
