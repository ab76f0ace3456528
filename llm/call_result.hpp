// call_result<T>: the outcome of an LLM call, a value or a classified failure.
//
// Like aopt::result<T>, plus the failure's error_kind as its own field (the status message also
// starts with it) and the tokens the endpoint billed for a failed call (a truncated answer is
// billed in full), so that token accounting matches what the endpoint reported.
//
// Thread-safety: value type.
#pragma once

#include <optional>
#include <utility>

#include "base/status.hpp"
#include "llm/chat_types.hpp"
#include "llm/error_kind.hpp"

namespace aopt::llm {

template <class T>
class [[nodiscard]] call_result {
 public:
  call_result(T value) : value_(std::move(value)) {}
  // REQUIRES: kind != error_kind::none and !error.ok().
  call_result(error_kind kind, status error, token_usage billed = {})
      : kind_(kind), error_(std::move(error)), billed_(billed) {}

  bool ok() const { return value_.has_value(); }
  error_kind kind() const { return kind_; }
  const status& error() const { return error_; }
  // Tokens billed for a failed call; zero for a successful one (see the value's usage).
  const token_usage& billed() const { return billed_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

  // For callers that need no classification.
  result<T> to_result() && {
    if (ok()) return std::move(*value_);
    return error_;
  }

 private:
  std::optional<T> value_;
  error_kind kind_ = error_kind::none;
  status error_;
  token_usage billed_;
};

}  // namespace aopt::llm
