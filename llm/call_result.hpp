// call_result<T>: the outcome of an LLM call, an aopt::result<T> whose error is a call_failure.
//
// A call_failure is the status (its message starts with the error kind, its code is the kind's)
// plus the kind as its own field, which callers branch on, and the tokens the endpoint billed for
// the failed call (a truncated answer is billed in full), so that token accounting matches what
// the endpoint reported. Where a plain status is expected it passes on as one.
//
// Thread-safety: value types.
#pragma once

#include <string>
#include <utility>

#include "base/status.hpp"
#include "llm/chat_types.hpp"
#include "llm/error_kind.hpp"

namespace aopt::llm {

class call_failure : public status {
 public:
  call_failure() = default;
  // "<kind>: <detail>" with the kind's code. REQUIRES: kind != error_kind::none.
  call_failure(error_kind kind, const std::string& detail, token_usage billed = {})
      : status(make_error(kind, detail)), kind_(kind), billed_(billed) {}
  // Passes on a failure already described. REQUIRES: kind != none and !error.ok().
  call_failure(error_kind kind, status error, token_usage billed = {})
      : status(std::move(error)), kind_(kind), billed_(billed) {}

  error_kind kind() const { return kind_; }
  // Tokens billed for the failed call (see the value's usage for a successful one).
  const token_usage& billed() const { return billed_; }

 private:
  error_kind kind_ = error_kind::none;
  token_usage billed_;
};

template <class T>
using call_result = result<T, call_failure>;

}  // namespace aopt::llm
