#include "llm/http_exchange.hpp"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace aopt::llm {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using strand_type = asio::strand<asio::io_context::executor_type>;
using tls_stream = beast::ssl_stream<beast::tcp_stream>;
using clock_type = std::chrono::steady_clock;

// Where an exchange is; it decides how a failure is classified.
enum class phase { resolving, connecting, handshaking, writing, reading };

constexpr uint32_t max_header_bytes = 64 * 1024;

std::string seconds_text(std::chrono::milliseconds d) {
  return fmt::format("{:g} s", static_cast<double>(d.count()) / 1000.0);
}

bool is_ip_address(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// All handlers run on one strand, so the state below needs no lock even when the runtime has
// several threads; cancel() and the deadline reach the stream only through that strand.
template <class Stream>
class exchange final : public http_exchange, public std::enable_shared_from_this<exchange<Stream>> {
 public:
  static constexpr bool uses_tls = std::is_same_v<Stream, tls_stream>;

  exchange(asio::io_context& context, std::shared_ptr<asio::ssl::context> tls, endpoint_url url,
           http_post_request request, http_limits limits, http_callback done)
      : strand_(asio::make_strand(context)),
        tls_(std::move(tls)),
        url_(std::move(url)),
        limits_(limits),
        done_(std::move(done)),
        resolver_(strand_),
        stream_(make_stream(strand_, tls_.get())),
        timer_(strand_) {
    request_.method(http::verb::post);
    request_.target(request.target);
    request_.version(11);
    request_.set(http::field::host, url_.host_header());
    for (const auto& [name, value] : request.headers) request_.set(name, value);
    request_.keep_alive(false);
    request_.body() = std::move(request.body);
    request_.prepare_payload();
    parser_.body_limit(limits_.max_body_bytes);
    parser_.header_limit(max_header_bytes);
  }

  void start() {
    asio::dispatch(strand_, [self = this->shared_from_this()] { self->begin(); });
  }

  void cancel() override {
    asio::post(strand_, [self = this->shared_from_this()] {
      if (self->finished_) return;
      self->cancelled_ = true;
      self->abort();
    });
  }

 private:
  static Stream make_stream(strand_type strand, asio::ssl::context* tls) {
    if constexpr (uses_tls)
      return Stream(strand, *tls);
    else
      return Stream(strand);
  }

  void begin() {
    if (cancelled_) return finish(classify(asio::error::operation_aborted));
    started_ = clock_type::now();
    arm(started_ + std::min(limits_.connect_timeout, limits_.total_timeout));
    resolver_.async_resolve(
        url_.host, std::to_string(url_.port),
        [self = this->shared_from_this()](error_code ec, tcp::resolver::results_type results) {
          self->on_resolve(ec, std::move(results));
        });
  }

  void on_resolve(error_code ec, tcp::resolver::results_type results) {
    if (failed(ec)) return;
    phase_ = phase::connecting;
    beast::get_lowest_layer(stream_).async_connect(
        results, [self = this->shared_from_this()](error_code ec, const tcp::endpoint&) {
          self->on_connect(ec);
        });
  }

  void on_connect(error_code ec) {
    if (failed(ec)) return;
    if constexpr (uses_tls) {
      phase_ = phase::handshaking;
      if (!expect_host(stream_.native_handle()))
        return finish(failure(error_kind::connect_error, false,
                              "cannot set up TLS host checks for " + where()));
      stream_.async_handshake(
          asio::ssl::stream_base::client,
          [self = this->shared_from_this()](error_code ec) { self->on_handshake(ec); });
    } else {
      send();
    }
  }

  // SNI for names, and the name (or address) the certificate must carry; OpenSSL checks it
  // during the handshake when verification is on.
  bool expect_host(SSL* ssl) {
    if (is_ip_address(url_.host))
      return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), url_.host.c_str()) == 1;
    return SSL_set_tlsext_host_name(ssl, url_.host.c_str()) == 1 &&
           SSL_set1_host(ssl, url_.host.c_str()) == 1;
  }

  void on_handshake(error_code ec) {
    if (failed(ec)) return;
    send();
  }

  void send() {
    phase_ = phase::writing;
    arm(started_ + limits_.total_timeout);
    http::async_write(
        stream_, request_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->on_write(ec); });
  }

  void on_write(error_code ec) {
    if (failed(ec)) return;
    phase_ = phase::reading;
    http::async_read(
        stream_, buffer_, parser_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(error_code ec) {
    if (failed(ec)) return;
    http::response<http::string_body>& response = parser_.get();
    http_outcome outcome;
    outcome.status = response.result_int();
    outcome.reason = std::string(response.reason());
    outcome.retry_after = std::string(response[http::field::retry_after]);
    outcome.body = std::move(response.body());
    finish(std::move(outcome));
  }

  void arm(clock_type::time_point deadline) {
    timer_.expires_at(deadline);
    timer_.async_wait(
        [self = this->shared_from_this(), generation = ++timer_generation_](error_code ec) {
          // A wait that already completed when the timer was re-armed must not count.
          if (ec || generation != self->timer_generation_ || self->finished_) return;
          self->timed_out_ = true;
          self->abort();
        });
  }

  void abort() {
    resolver_.cancel();
    beast::get_lowest_layer(stream_).close();
  }

  bool failed(error_code ec) {
    if (!ec && !cancelled_ && !timed_out_) return false;
    finish(classify(ec ? ec : error_code(asio::error::operation_aborted)));
    return true;
  }

  std::string where() const { return url_.host_header(); }

  static http_outcome failure(error_kind kind, bool retryable, std::string message) {
    http_outcome outcome;
    outcome.kind = kind;
    outcome.retryable = retryable;
    outcome.message = std::move(message);
    return outcome;
  }

  http_outcome classify(error_code ec) {
    if (cancelled_) return failure(error_kind::cancelled, false, "request cancelled");
    if (timed_out_) {
      if (phase_ == phase::writing || phase_ == phase::reading)
        return failure(error_kind::timeout, false,
                       "no complete answer from " + where() + " within " +
                           seconds_text(limits_.total_timeout));
      return failure(error_kind::connect_error, true,
                     "connecting to " + where() + " timed out after " +
                         seconds_text(std::min(limits_.connect_timeout, limits_.total_timeout)));
    }
    if (ec == http::error::body_limit)
      return failure(error_kind::malformed_body, false,
                     "answer from " + where() + " is larger than " +
                         std::to_string(limits_.max_body_bytes) + " bytes");
    switch (phase_) {
      case phase::resolving:
        return failure(error_kind::connect_error, true,
                       "cannot resolve '" + url_.host + "': " + ec.message());
      case phase::connecting:
        return failure(error_kind::connect_error, true,
                       "cannot connect to " + where() + ": " + ec.message());
      case phase::handshaking:
        return handshake_failure(ec);
      case phase::writing:
        return failure(error_kind::connect_error, true,
                       "sending the request to " + where() + " failed: " + ec.message());
      case phase::reading:
        break;
    }
    const bool connection_lost =
        ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec.category() != http::make_error_code(http::error::end_of_stream).category();
    if (connection_lost)
      return failure(
          error_kind::connect_error, true,
          "connection to " + where() + " lost before the answer was complete: " + ec.message());
    return failure(error_kind::malformed_body, false,
                   "answer from " + where() + " is not valid HTTP: " + ec.message());
  }

  // A certificate or protocol error will not go away by trying again; a reset might.
  http_outcome handshake_failure(error_code ec) {
    std::string message = "TLS handshake with " + where() + " failed: " + ec.message();
    if constexpr (uses_tls) {
      const long verify = SSL_get_verify_result(stream_.native_handle());
      if (verify != X509_V_OK)
        message += std::string(" (certificate: ") + X509_verify_cert_error_string(verify) + ")";
    }
    const bool tls_error = ec.category() == asio::error::get_ssl_category();
    return failure(error_kind::connect_error, !tls_error, std::move(message));
  }

  void finish(http_outcome outcome) {
    if (finished_) return;
    finished_ = true;
    ++timer_generation_;
    timer_.cancel();
    abort();
    http_callback done = std::move(done_);
    done_ = nullptr;
    done(std::move(outcome));
  }

  strand_type strand_;
  std::shared_ptr<asio::ssl::context> tls_;  // non-null iff uses_tls; outlives stream_
  endpoint_url url_;
  http_limits limits_;
  http_callback done_;
  tcp::resolver resolver_;
  Stream stream_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response_parser<http::string_body> parser_;
  clock_type::time_point started_;
  phase phase_ = phase::resolving;
  uint64_t timer_generation_ = 0;
  bool timed_out_ = false;
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace

std::shared_ptr<http_exchange> start_http_post(boost::asio::io_context& context,
                                               std::shared_ptr<boost::asio::ssl::context> tls,
                                               const endpoint_url& url, http_post_request request,
                                               http_limits limits, http_callback done) {
  if (url.tls()) {
    auto x = std::make_shared<exchange<tls_stream>>(context, std::move(tls), url,
                                                    std::move(request), limits, std::move(done));
    x->start();
    return x;
  }
  auto x = std::make_shared<exchange<beast::tcp_stream>>(context, nullptr, url, std::move(request),
                                                         limits, std::move(done));
  x->start();
  return x;
}

}  // namespace aopt::llm
