// wait_for_call: the blocking form of an asynchronous LLM call, for tests, the CLI and
// policies running in detached workers.
//
// Thread-safety: reentrant; refuses to block a runtime thread (the answer could only arrive on
// a runtime thread, so with one thread it would never come).
#pragma once

#include <functional>
#include <future>

#include "llm/call_result.hpp"
#include "llm/http_runtime.hpp"

namespace aopt::llm {

// Calls start(callback) and waits until the callback has run.
template <class T, class Start>
call_result<T> wait_for_call(http_runtime& runtime, Start start) {
  if (runtime.on_runtime_thread())
    return call_failure(error_kind::invalid_request,
                        "blocking LLM call on a runtime thread would deadlock; use the async form");
  std::promise<call_result<T>> promise;
  std::future<call_result<T>> future = promise.get_future();
  start(std::function<void(call_result<T>)>(
      [&promise](call_result<T> r) { promise.set_value(std::move(r)); }));
  return future.get();
}

}  // namespace aopt::llm
