// aopt::status and aopt::result<T>: the error type of every layer below the actors.
//
// Codes follow abseil's canonical list. Pick the most specific one:
//   invalid_argument  - the caller's input is malformed (a broken op.json, a bad config key)
//   not_found         - a named thing does not exist (a file, a campaign, a tuple)
//   failed_precondition - the system is not in a state to do it (schema mismatch, DB locked)
//   resource_exhausted - a limit was hit (LLM budget, UB capacity)
//   deadline_exceeded - a timeout
//   unavailable       - a transient failure worth retrying (connection refused, 503)
//   internal          - a bug or an unexpected third-party failure
//   cancelled         - stopped on request
//   data_loss         - persisted data is corrupt
//   unreadable_input  - a source of an operator package cannot be read as its conventions require
//                       (tunable annotations): the package is at fault, not the caller or a
//                       policy, so the episode records it instead of counting a failed step
//
// Thread-safety: value types; a const status may be read from many threads.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace aopt {

enum class status_code {
  ok = 0,
  cancelled,
  invalid_argument,
  deadline_exceeded,
  not_found,
  already_exists,
  failed_precondition,
  resource_exhausted,
  unavailable,
  internal,
  data_loss,
  unimplemented,
  unreadable_input,
};

const char* to_string(status_code code);

class [[nodiscard]] status {
 public:
  status() = default;
  status(status_code code, std::string message) : code_(code), message_(std::move(message)) {}

  static status ok_status() { return {}; }

  bool ok() const { return code_ == status_code::ok; }
  status_code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid_argument: op.json: inputs[0].dtype: unknown dtype 'half16'"
  std::string to_string() const;

  // Returns a copy whose message is "<context>: <message>".
  status with_context(const std::string& context) const;

 private:
  status_code code_ = status_code::ok;
  std::string message_;
};

inline status invalid_argument(std::string m) {
  return {status_code::invalid_argument, std::move(m)};
}
inline status not_found(std::string m) {
  return {status_code::not_found, std::move(m)};
}
inline status failed_precondition(std::string m) {
  return {status_code::failed_precondition, std::move(m)};
}
inline status internal_error(std::string m) {
  return {status_code::internal, std::move(m)};
}
inline status unavailable(std::string m) {
  return {status_code::unavailable, std::move(m)};
}
inline status unreadable_input(std::string m) {
  return {status_code::unreadable_input, std::move(m)};
}
inline status deadline_exceeded(std::string m) {
  return {status_code::deadline_exceeded, std::move(m)};
}
inline status resource_exhausted(std::string m) {
  return {status_code::resource_exhausted, std::move(m)};
}
inline status cancelled(std::string m) {
  return {status_code::cancelled, std::move(m)};
}
inline status data_loss(std::string m) {
  return {status_code::data_loss, std::move(m)};
}

// A value or the status explaining why there is none. REQUIRES: the status is not ok.
//
// E is status, or a class derived from it for a layer whose callers branch on more than the
// code (llm::call_failure carries the LLM error kind and the tokens billed for a failed call);
// such an error passes on as a plain status where one is expected.
template <class T, class E = status>
class [[nodiscard]] result {
  static_assert(std::is_base_of_v<status, E>, "a result's error is a status");

 public:
  result(T value) : value_(std::move(value)) {}
  result(E error) : error_(std::move(error)) {}

  bool ok() const { return value_.has_value(); }
  const E& error() const { return error_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  E error_;
};

}  // namespace aopt

#define AOPT_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::aopt::status aopt_status_ = (expr);        \
    if (!aopt_status_.ok()) return aopt_status_; \
  } while (0)
