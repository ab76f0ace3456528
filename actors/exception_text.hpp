// The text of an exception caught as std::exception_ptr, for the error that reports it: actor
// handlers catch what escapes them and answer with an error instead of dying silently.
#pragma once

#include <exception>
#include <string>

#include "base/utf8.hpp"

namespace aopt::actors {

inline std::string exception_text(const std::exception_ptr& e) {
  try {
    if (e) std::rethrow_exception(e);
  } catch (const std::exception& x) {
    // what() may quote outside bytes (nlohmann's type_error 316 does).
    return to_valid_utf8(x.what());
  } catch (...) {
  }
  return "unknown exception";
}

}  // namespace aopt::actors
