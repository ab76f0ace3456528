#include "base/status.hpp"

namespace aopt {

const char* to_string(status_code code) {
  switch (code) {
    case status_code::ok:
      return "ok";
    case status_code::cancelled:
      return "cancelled";
    case status_code::invalid_argument:
      return "invalid_argument";
    case status_code::deadline_exceeded:
      return "deadline_exceeded";
    case status_code::not_found:
      return "not_found";
    case status_code::already_exists:
      return "already_exists";
    case status_code::failed_precondition:
      return "failed_precondition";
    case status_code::resource_exhausted:
      return "resource_exhausted";
    case status_code::unavailable:
      return "unavailable";
    case status_code::internal:
      return "internal";
    case status_code::data_loss:
      return "data_loss";
    case status_code::unimplemented:
      return "unimplemented";
    case status_code::unreadable_input:
      return "unreadable_input";
  }
  return "unknown";
}

std::string status::to_string() const {
  if (ok()) return "ok";
  return std::string(aopt::to_string(code_)) + ": " + message_;
}

status status::with_context(const std::string& context) const {
  if (ok()) return *this;
  return {code_, context + ": " + message_};
}

}  // namespace aopt
