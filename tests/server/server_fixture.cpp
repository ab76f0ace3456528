#include "server_fixture.hpp"

#include <doctest/doctest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "config/aopt_config.hpp"

namespace aopt::testing {
namespace net = boost::asio;

std::string corpus_dir() {
  return std::string(AOPT_SOURCE_DIR) + "/corpus";
}

server_fixture::server_fixture(const std::string& token)
    : server_fixture([&] {
        server_fixture_options o;
        o.token = token;
        return o;
      }()) {}

server_fixture::server_fixture(server_fixture_options options) {
  auto opened = storage::store::open(dir.path() / "db");
  REQUIRE(opened.ok());
  db = std::move(*opened);
  hub = std::make_shared<server::event_hub>();
  campaigns = std::make_unique<server::campaign_manager>(*db, hub, 1);
  server::api_context ctx;
  ctx.db = db.get();
  ctx.campaigns = campaigns.get();
  ctx.hub = hub.get();
  ctx.access = server::access_policy(options.token);
  ctx.roots = server::path_roots(options.roots);
  if (options.uploads) ctx.uploads = server::operator_uploads(dir.path() / "uploads");
  ctx.load_config = [](const std::vector<std::string>& overrides) {
    return config::load_config("", overrides);
  };
  ctx.web_dir = std::string(AOPT_SOURCE_DIR) + "/server/web";
  router = std::make_unique<server::api_router>(std::move(ctx));
  http = std::make_unique<server::http_server>(*router, *hub, options.limits);
  auto port = http->start({"127.0.0.1", 0});
  REQUIRE(port.ok());
  url = {"127.0.0.1", std::to_string(*port), ""};
}

server_fixture::~server_fixture() {
  http->stop();
  campaigns->stop_all();
}

server::client_response server_fixture::call(const std::string& method, const std::string& target,
                                             const std::string& body, const std::string& bearer) {
  auto res = server::http_call(url, method, target, body, bearer);
  REQUIRE_MESSAGE(res.ok(), res.error().to_string());
  return *res;
}

std::string server_fixture::raw(const std::string& bytes) {
  net::io_context ioc;
  net::ip::tcp::socket socket(ioc);
  socket.connect({net::ip::make_address("127.0.0.1"), static_cast<uint16_t>(std::stoi(url.port))});
  net::write(socket, net::buffer(bytes));
  std::string answer;
  boost::system::error_code ec;
  char buf[4096];
  for (;;) {
    const size_t n = socket.read_some(net::buffer(buf), ec);
    if (ec) break;
    answer.append(buf, n);
  }
  return answer;
}

}  // namespace aopt::testing
