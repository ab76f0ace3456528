// openai_client: asynchronous chat completions and embeddings against an OpenAI-compatible
// endpoint (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp server, ...), over HTTP or HTTPS.
//
//   llm::http_runtime runtime;
//   auto client = llm::openai_client::make(runtime, options);   // result<unique_ptr<...>>
//   (*client)->async_chat({{llm::user_message("hi")}}, [](llm::call_result<llm::chat_response> r) {
//     // on a runtime thread: forward r, do not block
//   });
//
// Each call is POST {base_url}/chat/completions or /embeddings with the client's defaults for
// what the request leaves unset. A connection error, a 429 or a 5xx is retried up to
// max_retries times with exponential backoff and jitter (a 429's Retry-After replaces the
// backoff); any other failure is final. Failures are classified (error_kind) and their
// messages name the endpoint and the reason, never the API key (it is redacted even when the
// endpoint echoes it back).
//
// Lifetime: the runtime must outlive the client. Destroying the client cancels its calls in
// flight; their callbacks then run with error_kind::cancelled (possibly after the destructor
// returned, on a runtime thread).
//
// Thread-safety: all methods may be called from any thread; callbacks run on runtime threads,
// each exactly once, never inside the async_* call that started them.
#pragma once

#include <functional>
#include <memory>

#include "base/status.hpp"
#include "llm/call_result.hpp"
#include "llm/chat_types.hpp"
#include "llm/client_options.hpp"
#include "llm/endpoint_url.hpp"
#include "llm/http_runtime.hpp"

namespace aopt::llm {

namespace detail {
struct client_core;
class post_operation;
}  // namespace detail

using chat_callback = std::function<void(call_result<chat_response>)>;
using embedding_callback = std::function<void(call_result<embedding_response>)>;

// Cancels one call; a default-constructed or finished handle does nothing.
class call_handle {
 public:
  call_handle() = default;
  void cancel() const;

 private:
  friend class openai_client;
  explicit call_handle(std::weak_ptr<detail::post_operation> operation)
      : operation_(std::move(operation)) {}
  std::weak_ptr<detail::post_operation> operation_;
};

class openai_client {
 public:
  // Reads the API key from the environment once. Errors: invalid_argument for a bad base URL
  // or option; not_found / invalid_argument for an unreadable CA file.
  static result<std::unique_ptr<openai_client>> make(http_runtime& runtime, client_options options);
  ~openai_client();

  openai_client(const openai_client&) = delete;
  openai_client& operator=(const openai_client&) = delete;

  const client_options& options() const;
  const endpoint_url& url() const;
  // Whether a key was found in the environment variable the options name.
  bool has_api_key() const;

  // The request as it will be sent: unset model, temperature and max_tokens take the defaults.
  chat_request with_defaults(chat_request request) const;
  embedding_request with_defaults(embedding_request request) const;

  call_handle async_chat(chat_request request, chat_callback done);
  call_handle async_embed(embedding_request request, embedding_callback done);

  // Blocking forms for tests and the CLI. REQUIRES: not called on a runtime thread (that
  // would deadlock it; such a call fails with invalid_request instead).
  call_result<chat_response> chat(chat_request request);
  call_result<embedding_response> embed(embedding_request request);

 private:
  openai_client(http_runtime& runtime, std::shared_ptr<detail::client_core> core);

  http_runtime& runtime_;
  std::shared_ptr<detail::client_core> core_;  // shared with the calls in flight
};

}  // namespace aopt::llm
