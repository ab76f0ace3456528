#include "server/http_server.hpp"

#include <pthread.h>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace aopt::server {
namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr std::chrono::milliseconds first_accept_backoff{10};
constexpr std::chrono::milliseconds max_accept_backoff{1000};

}  // namespace

http_server::http_server(const api_router& router, event_hub& hub, session_limits limits,
                         unsigned threads)
    : router_(router),
      hub_(hub),
      limits_(limits),
      threads_count_(std::max(1u, threads)),
      connections_(effective_connection_limit(limits.max_connections)),
      refusals_(std::max<size_t>(1, connections_.max() / 4)),
      ioc_(static_cast<int>(threads_count_)),
      acceptor_(net::make_strand(ioc_)),
      accept_retry_(acceptor_.get_executor()) {}

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
      // An exception escaping a handler leaves run(); the thread goes back to serving. The
      // handlers themselves answer errors (the router turns exceptions into 500s), so this is
      // the last line of defence, e.g. for std::bad_alloc.
      for (;;) {
        try {
          ioc_.run();
          return;
        } catch (const std::exception&) {
        }
      }
    });
  }
  return port;
}

void http_server::accept() {
  acceptor_.async_accept(net::make_strand(ioc_), [this](boost::system::error_code ec,
                                                        tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec && ec != net::error::connection_aborted) {
      // At the descriptor limit the failure repeats at once for as long as the pending
      // connection waits; retrying immediately would spin a core.
      ++accept_errors_;
      accept_backoff_ =
          std::min(max_accept_backoff,
                   accept_backoff_.count() == 0 ? first_accept_backoff : accept_backoff_ * 2);
      accept_retry_.expires_after(accept_backoff_);
      accept_retry_.async_wait([this](boost::system::error_code wait_ec) {
        if (!wait_ec && acceptor_.is_open()) accept();
      });
      return;
    }
    accept_backoff_ = std::chrono::milliseconds{0};
    if (!ec) {
      if (std::optional<connection_limit::slot> slot = connections_.try_acquire()) {
        std::make_shared<http_session>(std::move(socket), router_, hub_, limits_, std::move(*slot))
            ->start();
      } else {
        refuse(std::move(socket));
      }
    }
    accept();
  });
}

void http_server::refuse(tcp::socket socket) {
  std::optional<connection_limit::slot> slot = refusals_.try_acquire();
  if (!slot) return;  // the socket closes here
  http_response busy =
      error_response(unavailable("too many connections (server.max_connections: " +
                                 std::to_string(connections_.max()) + "); retry later"),
                     11, false);
  busy.set(http::field::retry_after, "1");
  std::make_shared<http_session>(std::move(socket), router_, hub_, limits_, std::move(*slot))
      ->refuse(std::move(busy));
}

void http_server::stop_accepting() {
  net::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ec;
    acceptor_.close(ec);
    accept_retry_.cancel();
  });
}

void http_server::stop() {
  if (threads_.empty()) return;
  ioc_.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

}  // namespace aopt::server
