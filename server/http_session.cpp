#include "server/http_session.hpp"

#include <sstream>

#include <boost/asio/dispatch.hpp>

#include "server/sse_stream.hpp"

namespace aopt::server {
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

namespace {

// How long a refused connection may take to read its 503 before it is closed.
constexpr std::chrono::seconds refusal_timeout{2};

}  // namespace

http_session::http_session(net::ip::tcp::socket socket, const api_router& router, event_hub& hub,
                           session_limits limits, connection_limit::slot slot)
    : stream_(std::move(socket)),
      slot_(std::move(slot)),
      router_(router),
      hub_(hub),
      limits_(limits) {}

void http_session::start() {
  // The socket was accepted on its own strand; start there so no handler of this session ever
  // runs concurrently with another.
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_request(); });
}

void http_session::refuse(http_response response) {
  net::dispatch(stream_.get_executor(),
                [self = shared_from_this(), response = std::move(response)]() mutable {
                  self->stream_.expires_after(refusal_timeout);
                  self->respond(std::move(response), true);
                });
}

void http_session::read_request() {
  parser_.emplace();
  parser_->body_limit(limits_.max_body_bytes);
  parser_->header_limit(limits_.max_header_bytes);
  stream_.expires_after(limits_.idle_timeout);
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
}

void http_session::on_read(beast::error_code ec) {
  if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == net::error::connection_reset || ec == net::error::operation_aborted) {
    close();
    return;
  }
  if (ec == http::error::body_limit) {
    respond(error_response(request_failure::body_too_large,
                           "request body larger than " + std::to_string(limits_.max_body_bytes) +
                               " bytes (server.max_body_bytes)",
                           11, false),
            true);
    return;
  }
  if (ec == http::error::header_limit) {
    respond(
        error_response(request_failure::headers_too_large,
                       "request header larger than " + std::to_string(limits_.max_header_bytes) +
                           " bytes (server.max_header_bytes)",
                       11, false),
        true);
    return;
  }
  if (ec) {
    respond(error_response(invalid_argument("malformed HTTP request: " + ec.message()), 11, false),
            true);
    return;
  }
  http_request request = parser_->release();
  routed r = router_.handle(request);  // never throws: a failing route is a 500
  if (r.stream) {
    start_stream(r.response, *r.stream);
    return;
  }
  respond(std::move(r.response), !request.keep_alive());
}

void http_session::respond(http_response response, bool close_after) {
  response_ = std::move(response);
  if (close_after) response_.keep_alive(false);
  http::async_write(stream_, response_,
                    [self = shared_from_this(), close_after](beast::error_code ec, size_t) {
                      if (ec || close_after) {
                        self->close();
                        return;
                      }
                      self->read_request();
                    });
}

void http_session::start_stream(const http_response& header, const sse_request& request) {
  std::ostringstream head;
  head << header.base();
  auto stream = std::make_shared<sse_stream>(std::move(stream_), head.str(), request.campaign,
                                             std::move(slot_));
  stream->start(hub_, request.since);
}

void http_session::close() {
  beast::error_code ec;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
  drain();
}

void http_session::drain() {
  // Closing a socket with unread input sends a reset, which can destroy the answer (say, a 413)
  // before the client read it; so read and discard until the client closes or the deadline.
  stream_.async_read_some(net::buffer(discard_),
                          [self = shared_from_this()](beast::error_code ec, size_t) {
                            if (!ec) self->drain();
                          });
}

}  // namespace aopt::server
