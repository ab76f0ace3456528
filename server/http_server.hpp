// The listener of `aopt serve`: binds the configured address, accepts connections on a small
// pool of Asio threads (each connection on its own strand) and gives each to an http_session.
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

#include "base/status.hpp"
#include "server/api_router.hpp"
#include "server/event_hub.hpp"
#include "server/http_session.hpp"
#include "server/listen_address.hpp"

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

 private:
  void accept();

  const api_router& router_;
  event_hub& hub_;
  session_limits limits_;
  unsigned threads_count_;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
};

}  // namespace aopt::server
