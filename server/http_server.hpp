// The listener of `aopt serve`: binds the configured address, accepts connections on a small
// pool of Asio threads (each connection on its own strand) and gives each to an http_session.
//
// At most limits.max_connections connections (lowered to what the file descriptor limit leaves,
// see effective_connection_limit) are served at once; one beyond gets a 503 with Retry-After and
// is closed. When accept() itself fails (EMFILE/ENFILE at the descriptor limit, ENOBUFS), the
// listener waits before it tries again, 10 ms doubling up to 1 s, instead of spinning on the
// error; the connections queue in the kernel's backlog meanwhile.
//
// A handler that throws does not end a server thread: the thread logs nothing, counts it and
// runs on (Asio's documented way to survive handler exceptions).
//
// Shutdown, in order: stop_accepting() closes the listening socket (running campaigns go on,
// open connections still get answers), then stop() ends every connection and joins the threads.
//
// Thread-safety: start/stop_accepting/stop from one controlling thread.
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/listen_address.hpp"
#include "base/status.hpp"
#include "server/api_router.hpp"
#include "server/connection_limit.hpp"
#include "server/event_hub.hpp"
#include "server/http_session.hpp"

namespace aopt::server {

// The name of the server's threads (as in /proc/<pid>/task/<tid>/comm).
inline constexpr char http_thread_name[] = "aopt-http";

class http_server {
 public:
  // `router` and `hub` must outlive the server.
  http_server(const api_router& router, event_hub& hub, session_limits limits,
              unsigned threads = 2);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // Binds and starts serving. Returns the bound port (the OS's choice when address.port is 0).
  // Errors: unavailable naming the address when it cannot be bound.
  result<uint16_t> start(const listen_address& address);
  void stop_accepting();
  void stop();

  // The effective connection limit and how many connections it turned away so far.
  const connection_limit& connections() const { return connections_; }
  // accept() failures so far (each followed by a wait).
  uint64_t accept_errors() const { return accept_errors_.load(); }

 private:
  void accept();
  void refuse(boost::asio::ip::tcp::socket socket);

  const api_router& router_;
  event_hub& hub_;
  session_limits limits_;
  unsigned threads_count_;
  connection_limit connections_;
  // Connections being answered 503, themselves bounded (a quarter of the limit): beyond both
  // limits a socket is closed at once.
  connection_limit refusals_;
  std::atomic<uint64_t> accept_errors_{0};
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_retry_;  // on the acceptor's strand
  std::chrono::milliseconds accept_backoff_{0};
  std::vector<std::thread> threads_;
};

}  // namespace aopt::server
