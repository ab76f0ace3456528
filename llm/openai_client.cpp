#include "llm/openai_client.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "base/utf8.hpp"
#include "llm/backoff.hpp"
#include "llm/blocking_call.hpp"
#include "llm/http_exchange.hpp"
#include "llm/openai_protocol.hpp"

namespace aopt::llm {

namespace asio = boost::asio;
using error_code = boost::system::error_code;

namespace detail {

// What the client and its calls in flight share; it lives as long as the last of them.
struct client_core {
  client_options options;
  endpoint_url url;
  std::string api_key;                      // "" = none
  std::shared_ptr<asio::ssl::context> tls;  // non-null iff url.tls()

  // Replaces every occurrence of the API key, so that no error message carries it even when
  // the endpoint echoes the request back.
  std::string redact(std::string text) const {
    constexpr std::string_view marker = "[redacted]";
    if (api_key.empty()) return text;
    for (size_t at = text.find(api_key); at != std::string::npos;
         at = text.find(api_key, at + marker.size()))
      text.replace(at, api_key.size(), marker);
    return text;
  }

  std::chrono::milliseconds next_backoff(uint32_t retry) {
    std::lock_guard<std::mutex> lock(mutex);
    return jitter.delay(retry);
  }

  std::mutex mutex;
  backoff jitter{options.backoff_initial, options.backoff_max, options.jitter_seed};
  // Calls in flight, so that the client's destructor can cancel them.
  std::map<uint64_t, std::weak_ptr<post_operation>> live;
  uint64_t next_id = 0;
};

using operation_callback = std::function<void(http_outcome final_outcome, uint32_t attempts)>;

// One POST with its retries. All state is touched on the strand only.
class post_operation : public std::enable_shared_from_this<post_operation> {
 public:
  post_operation(asio::io_context& context, std::shared_ptr<client_core> core,
                 http_post_request request, operation_callback done)
      : context_(context),
        strand_(asio::make_strand(context)),
        timer_(strand_),
        core_(std::move(core)),
        request_(std::move(request)),
        done_(std::move(done)) {}

  void start() {
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      id_ = core_->next_id++;
      core_->live[id_] = weak_from_this();
    }
    asio::post(strand_, [self = shared_from_this()] { self->attempt(); });
  }

  void cancel() {
    asio::post(strand_, [self = shared_from_this()] {
      if (self->finished_) return;
      self->cancelled_ = true;
      self->timer_.cancel();
      if (self->exchange_) self->exchange_->cancel();
    });
  }

 private:
  void attempt() {
    if (cancelled_) return finish(cancelled_outcome());
    ++attempts_;
    http_limits limits;
    limits.connect_timeout = core_->options.connect_timeout;
    limits.total_timeout = core_->options.timeout;
    limits.max_body_bytes = core_->options.max_response_bytes;
    exchange_ = start_http_post(
        context_, core_->tls, core_->url, request_, limits,
        [self = shared_from_this()](http_outcome outcome) {
          asio::post(self->strand_,
                     [self, o = std::move(outcome)]() mutable { self->on_outcome(std::move(o)); });
        });
  }

  void on_outcome(http_outcome outcome) {
    exchange_.reset();
    if (cancelled_) return finish(cancelled_outcome());
    bool retry = false;
    std::optional<std::chrono::milliseconds> wait;
    if (outcome.kind == error_kind::none) {
      if (outcome.status == 429) {
        retry = true;
        wait = parse_retry_after(outcome.retry_after);
      } else if (outcome.status >= 500) {
        retry = true;
      }
    } else {
      retry = outcome.retryable;
    }
    if (!retry || attempts_ > core_->options.max_retries) return finish(std::move(outcome));
    timer_.expires_after(wait ? *wait : core_->next_backoff(attempts_));
    // Only cancel() cuts the wait short, and attempt() then reports the cancellation.
    timer_.async_wait([self = shared_from_this()](error_code) { self->attempt(); });
  }

  static http_outcome cancelled_outcome() {
    http_outcome outcome;
    outcome.kind = error_kind::cancelled;
    outcome.message = "request cancelled";
    return outcome;
  }

  void finish(http_outcome outcome) {
    if (finished_) return;
    finished_ = true;
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      core_->live.erase(id_);
    }
    operation_callback done = std::move(done_);
    done_ = nullptr;
    done(std::move(outcome), attempts_);
  }

  asio::io_context& context_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;  // the backoff wait between attempts
  std::shared_ptr<client_core> core_;
  http_post_request request_;
  operation_callback done_;
  std::shared_ptr<http_exchange> exchange_;  // the attempt in progress, if any
  uint64_t id_ = 0;
  uint32_t attempts_ = 0;
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace detail

namespace {

std::string plural(uint32_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The final outcome of an operation as a call_result: a failure as it is, an HTTP error status
// by its class, a 2xx answer by `parse`. Every message becomes "<kind>: POST <url>: <detail>",
// redacted: the kind stays the first word, as error_kind.hpp promises.
template <class T, class Parse>
call_result<T> interpret(const detail::client_core& core, const std::string& target,
                         const http_outcome& outcome, uint32_t attempts, Parse parse) {
  const std::string context = "POST " + core.url.scheme + "://" + core.url.host_header() + target;
  auto fail = [&](error_kind kind, std::string detail, token_usage billed = {}) {
    const std::string kind_prefix = std::string(to_string(kind)) + ": ";
    if (detail.rfind(kind_prefix, 0) == 0) detail.erase(0, kind_prefix.size());
    return call_result<T>(call_failure(kind, context + ": " + core.redact(detail), billed));
  };
  if (outcome.kind != error_kind::none) {
    std::string detail = outcome.message;
    if (outcome.retryable && attempts > 1) detail += " (" + plural(attempts, "attempt") + ")";
    return fail(outcome.kind, detail);
  }
  if (outcome.status < 200 || outcome.status >= 300) {
    const error_kind kind = outcome.status == 429   ? error_kind::http_429
                            : outcome.status >= 500 ? error_kind::http_5xx
                                                    : error_kind::http_4xx;
    std::string detail = "HTTP " + std::to_string(outcome.status) + " " + outcome.reason;
    if (kind != error_kind::http_4xx) detail += " after " + plural(attempts, "attempt");
    detail += ": " + error_detail(outcome.body);
    if ((outcome.status == 401 || outcome.status == 403) && core.api_key.empty())
      detail += " (no API key: " +
                (core.options.api_key_env.empty()
                     ? std::string("api_key_env is empty")
                     : "environment variable " + core.options.api_key_env + " is not set") +
                ")";
    return fail(kind, detail);
  }
  call_result<T> parsed = parse(outcome.body);
  if (!parsed.ok())
    return fail(parsed.error().kind(), parsed.error().message(), parsed.error().billed());
  parsed->attempts = attempts;
  return parsed;
}

http_post_request make_post(const detail::client_core& core, const std::string& target,
                            std::string body) {
  http_post_request post;
  post.target = target;
  post.body = std::move(body);
  post.headers.emplace_back("Content-Type", "application/json");
  post.headers.emplace_back("Accept", "application/json");
  post.headers.emplace_back("User-Agent", core.options.user_agent);
  if (!core.api_key.empty()) post.headers.emplace_back("Authorization", "Bearer " + core.api_key);
  for (const auto& [name, value] : core.options.extra_headers)
    post.headers.emplace_back(name, value);
  return post;
}

// Runs `done` with `r` on the runtime, never inside the caller's async_* call.
template <class T>
void post_result(http_runtime& runtime, std::function<void(call_result<T>)> done,
                 call_result<T> r) {
  asio::post(runtime.context(),
             [done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
}

status check_options(const client_options& o) {
  if (o.timeout.count() <= 0) return invalid_argument("llm client: timeout must be > 0");
  if (o.connect_timeout.count() <= 0)
    return invalid_argument("llm client: connect_timeout must be > 0");
  if (o.backoff_initial.count() <= 0 || o.backoff_max < o.backoff_initial)
    return invalid_argument("llm client: need 0 < backoff_initial <= backoff_max");
  if (o.max_tokens == 0) return invalid_argument("llm client: max_tokens must be >= 1");
  if (o.max_response_bytes == 0)
    return invalid_argument("llm client: max_response_bytes must be >= 1");
  return {};
}

result<std::shared_ptr<asio::ssl::context>> make_tls_context(const client_options& o) {
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  error_code ec;
  tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1,
                   ec);
  if (ec) return internal_error("llm client: TLS options: " + ec.message());
  if (!o.verify_tls) {
    tls->set_verify_mode(asio::ssl::verify_none, ec);
    if (ec) return internal_error("llm client: TLS verify mode: " + ec.message());
    return tls;
  }
  tls->set_verify_mode(asio::ssl::verify_peer, ec);
  if (ec) return internal_error("llm client: TLS verify mode: " + ec.message());
  tls->set_default_verify_paths(ec);
  if (ec) return internal_error("llm client: system CA certificates: " + ec.message());
  if (!o.ca_file.empty()) {
    if (!std::filesystem::exists(o.ca_file))
      return not_found("llm client: CA file '" + o.ca_file + "' does not exist");
    tls->load_verify_file(o.ca_file, ec);
    if (ec) return invalid_argument("llm client: CA file '" + o.ca_file + "': " + ec.message());
  }
  return tls;
}

}  // namespace

void call_handle::cancel() const {
  if (auto operation = operation_.lock()) operation->cancel();
}

result<std::unique_ptr<openai_client>> openai_client::make(http_runtime& runtime,
                                                           client_options options) {
  AOPT_RETURN_IF_ERROR(check_options(options));
  result<endpoint_url> url = parse_endpoint_url(options.base_url);
  if (!url.ok()) return url.error().with_context("llm client");
  auto core = std::make_shared<detail::client_core>();
  core->options = std::move(options);
  core->jitter =
      backoff(core->options.backoff_initial, core->options.backoff_max, core->options.jitter_seed);
  core->url = std::move(*url);
  if (!core->options.api_key_env.empty()) {
    if (const char* key = std::getenv(core->options.api_key_env.c_str())) core->api_key = key;
  }
  if (core->url.tls()) {
    result<std::shared_ptr<asio::ssl::context>> tls = make_tls_context(core->options);
    if (!tls.ok()) return tls.error();
    core->tls = std::move(*tls);
  }
  return std::unique_ptr<openai_client>(new openai_client(runtime, std::move(core)));
}

openai_client::openai_client(http_runtime& runtime, std::shared_ptr<detail::client_core> core)
    : runtime_(runtime), core_(std::move(core)) {}

openai_client::~openai_client() {
  std::vector<std::shared_ptr<detail::post_operation>> live;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    for (auto& [id, weak] : core_->live)
      if (auto operation = weak.lock()) live.push_back(std::move(operation));
  }
  for (auto& operation : live) operation->cancel();
}

const client_options& openai_client::options() const {
  return core_->options;
}
const endpoint_url& openai_client::url() const {
  return core_->url;
}
bool openai_client::has_api_key() const {
  return !core_->api_key.empty();
}

chat_request openai_client::with_defaults(chat_request request) const {
  if (!request.model || request.model->empty()) request.model = core_->options.model;
  if (!request.temperature) request.temperature = core_->options.temperature;
  if (!request.max_tokens) request.max_tokens = core_->options.max_tokens;
  return request;
}

embedding_request openai_client::with_defaults(embedding_request request) const {
  if (!request.model || request.model->empty()) request.model = core_->options.embedding_model;
  return request;
}

call_handle openai_client::async_chat(chat_request request, chat_callback done) {
  request = with_defaults(std::move(request));
  if (request.model->empty() || request.messages.empty()) {
    const char* what = request.model->empty()
                           ? "no chat model: set llm.model or name one in the request"
                           : "a chat request needs at least one message";
    post_result<chat_response>(runtime_, std::move(done),
                               call_failure(error_kind::invalid_request, what));
    return {};
  }
  const std::string target = core_->url.target("/chat/completions");
  auto operation = std::make_shared<detail::post_operation>(
      runtime_.context(), core_, make_post(*core_, target, dump_json(chat_request_body(request))),
      [core = core_, target, done = std::move(done)](http_outcome outcome, uint32_t attempts) {
        done(interpret<chat_response>(
            *core, target, outcome, attempts,
            [](const std::string& body) { return parse_chat_answer(body); }));
      });
  operation->start();
  return call_handle(operation);
}

call_handle openai_client::async_embed(embedding_request request, embedding_callback done) {
  request = with_defaults(std::move(request));
  if (request.model->empty() || request.inputs.empty()) {
    const char* what = request.model->empty()
                           ? "no embedding model: set llm.embedding_model or name one"
                           : "an embedding request needs at least one input";
    post_result<embedding_response>(runtime_, std::move(done),
                                    call_failure(error_kind::invalid_request, what));
    return {};
  }
  const std::string target = core_->url.target("/embeddings");
  const size_t inputs = request.inputs.size();
  auto operation = std::make_shared<detail::post_operation>(
      runtime_.context(), core_,
      make_post(*core_, target, dump_json(embedding_request_body(request))),
      [core = core_, target, inputs, done = std::move(done)](http_outcome outcome,
                                                             uint32_t attempts) {
        done(interpret<embedding_response>(
            *core, target, outcome, attempts,
            [inputs](const std::string& body) { return parse_embedding_answer(body, inputs); }));
      });
  operation->start();
  return call_handle(operation);
}

call_result<chat_response> openai_client::chat(chat_request request) {
  return wait_for_call<chat_response>(
      runtime_, [&](chat_callback done) { async_chat(std::move(request), std::move(done)); });
}

call_result<embedding_response> openai_client::embed(embedding_request request) {
  return wait_for_call<embedding_response>(
      runtime_, [&](embedding_callback done) { async_embed(std::move(request), std::move(done)); });
}

}  // namespace aopt::llm
