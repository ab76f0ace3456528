// One HTTP connection of `aopt serve`: reads requests under the configured header and body
// limits with an idle deadline, answers each through the api_router, and hands the socket to an
// sse_stream when the router accepted an event-stream request. Oversized or malformed requests
// get a 4xx answer with a reason and the connection is closed; nothing else is affected.
//
// Thread-safety: each session runs on its own strand.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <optional>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/api_router.hpp"
#include "server/connection_limit.hpp"
#include "server/event_hub.hpp"

namespace aopt::server {

struct session_limits {
  uint64_t max_body_bytes = 16 << 20;
  uint32_t max_header_bytes = 16 << 10;
  std::chrono::seconds idle_timeout{30};
  size_t max_connections = 256;  // server.max_connections, before the file descriptor limit
};

class http_session : public std::enable_shared_from_this<http_session> {
 public:
  // `router` and `hub` must outlive every session (the server stops its threads first).
  // `slot`: the connection's place under server.max_connections, held while the socket lives.
  http_session(boost::asio::ip::tcp::socket socket, const api_router& router, event_hub& hub,
               session_limits limits, connection_limit::slot slot);

  void start();
  // Answers `response` without reading a request (a connection beyond the limit), then closes
  // within a few seconds.
  void refuse(http_response response);

 private:
  void read_request();
  void on_read(boost::beast::error_code ec);
  void respond(http_response response, bool close_after);
  void start_stream(const http_response& header, const sse_request& request);
  void close();
  void drain();

  boost::beast::tcp_stream stream_;
  connection_limit::slot slot_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  http_response response_;  // kept alive while it is written
  const api_router& router_;
  event_hub& hub_;
  session_limits limits_;
  std::array<char, 4096> discard_;
};

}  // namespace aopt::server
