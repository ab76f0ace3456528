#include "server/http_server.hpp"

#include <pthread.h>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace aopt::server {
namespace net = boost::asio;
using tcp = net::ip::tcp;

http_server::http_server(const api_router& router, event_hub& hub, session_limits limits,
                         unsigned threads)
    : router_(router),
      hub_(hub),
      limits_(limits),
      threads_count_(std::max(1u, threads)),
      ioc_(static_cast<int>(threads_count_)),
      acceptor_(net::make_strand(ioc_)) {}

http_server::~http_server() {
  stop();
}

result<uint16_t> http_server::start(const listen_address& address) {
  boost::system::error_code ec;
  const std::string host = address.host == "localhost" ? "127.0.0.1" : address.host;
  const tcp::endpoint endpoint(net::ip::make_address(host, ec), address.port);
  if (ec) return invalid_argument("listen address " + address.to_string() + ": " + ec.message());
  const auto fail = [&](const char* what) {
    return unavailable("cannot listen on " + address.to_string() + ": " + what + ": " +
                       ec.message());
  };
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) return fail("open");
  acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) return fail("set_option");
  acceptor_.bind(endpoint, ec);
  if (ec) return fail("bind");
  acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  const uint16_t port = acceptor_.local_endpoint(ec).port();
  accept();
  for (unsigned i = 0; i < threads_count_; ++i) {
    threads_.emplace_back([this] {
      // Named so that top -H, perf and bench_server_polling can tell the API's CPU apart from
      // the campaigns'.
      pthread_setname_np(pthread_self(), http_thread_name);
      ioc_.run();
    });
  }
  return port;
}

void http_server::accept() {
  acceptor_.async_accept(
      net::make_strand(ioc_), [this](boost::system::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
        if (!ec) {
          std::make_shared<http_session>(std::move(socket), router_, hub_, limits_)->start();
        }
        accept();
      });
}

void http_server::stop_accepting() {
  net::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ec;
    acceptor_.close(ec);
  });
}

void http_server::stop() {
  if (threads_.empty()) return;
  ioc_.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

}  // namespace aopt::server
