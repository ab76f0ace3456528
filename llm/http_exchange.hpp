// One HTTP(S) POST and its answer over Beast: resolve, connect, TLS handshake (with SNI and
// host-name verification), write, read, close. One connection per exchange ("Connection:
// close"): LLM calls are long, so connection reuse would save little and add state.
//
// Failures come back classified (connect_error, timeout, malformed_body, cancelled) with a
// flag saying whether repeating the exchange may help; an HTTP error status is not a failure
// here but a reply for the caller to judge.
//
// Thread-safety: cancel() may be called from any thread. The callback runs once, on a thread
// of the io_context.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include "llm/endpoint_url.hpp"
#include "llm/error_kind.hpp"

namespace aopt::llm {

struct http_post_request {
  std::string target;  // "/v1/chat/completions"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct http_limits {
  std::chrono::milliseconds connect_timeout{10000};  // resolve + connect + handshake
  std::chrono::milliseconds total_timeout{300000};   // from the start to the last byte
  uint64_t max_body_bytes = 64ull * 1024 * 1024;
};

struct http_outcome {
  error_kind kind = error_kind::none;  // none: `status` and the fields below hold the reply
  bool retryable = false;              // for a failure: may a new attempt succeed?
  std::string message;                 // for a failure: what happened, naming host and phase
  unsigned status = 0;
  std::string reason;
  std::string retry_after;  // the Retry-After header, verbatim
  std::string body;
};

class http_exchange {
 public:
  virtual ~http_exchange() = default;
  // Ends the exchange early; its callback then reports error_kind::cancelled (unless it already
  // finished).
  virtual void cancel() = 0;
};

using http_callback = std::function<void(http_outcome)>;

// Starts the POST and returns a handle to cancel it. `tls` is required for an https URL (the
// exchange keeps it alive) and ignored for http. `context` must outlive the exchange.
std::shared_ptr<http_exchange> start_http_post(boost::asio::io_context& context,
                                               std::shared_ptr<boost::asio::ssl::context> tls,
                                               const endpoint_url& url, http_post_request request,
                                               http_limits limits, http_callback done);

}  // namespace aopt::llm
