// The daemon's HTTP server, in process on a loopback port, against input meant to break it (issue
// 21): bytes that are not UTF-8 in the path, body, upload names and campaign ids, a package with
// a link out of it, more connections than it serves, and a bounded seeded fuzz over the API and
// op.json. After each, the server still answers /healthz and every answer is UTF-8 JSON.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

#include "base/utf8.hpp"
#include "npu/op_package.hpp"
#include "server_fixture.hpp"
#include "support/request_fuzzer.hpp"

namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;
using aopt::testing::server_fixture;

const std::string token = "fuzz-token";
const fs::path hostile_input_op = fs::path(aopt::testing::corpus_dir()) / "level1" / "add_custom";

using aopt::testing::request_fuzzer;

std::string upload_body(const std::string& op_json) {
  return request_fuzzer::upload_body(hostile_input_op, op_json);
}

using answer = aopt::testing::raw_answer;

answer send_raw(const server_fixture& f, const std::string& bytes) {
  return aopt::testing::raw_exchange(static_cast<uint16_t>(std::stoi(f.url.port)), bytes);
}

// A JSON error answer must be UTF-8 (nlohmann's parser refuses anything else).
void check_json_body(const answer& a) {
  if (a.body.empty() || a.body.front() != '{') return;
  CHECK_MESSAGE(aopt::is_valid_utf8(a.body), a.body);
  CHECK(nlohmann::json::accept(a.body));
}

bool healthy(server_fixture& f) {
  return f.call("GET", "/healthz").status == 200;
}

}  // namespace

TEST_CASE("requests with bytes that are not UTF-8 get a 4xx in UTF-8 JSON, and the server lives") {
  aopt::testing::server_fixture_options options;
  options.token = token;
  options.uploads = true;
  options.limits.max_body_bytes = 1 << 20;
  server_fixture f(options);
  const std::string bearer = "Authorization: Bearer " + token + "\r\n";
  const std::vector<std::pair<std::string, std::string>> crashers = {
      {"encoded 0xFF in the path, before the token check",
       "GET /%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
      {"a raw 0xFF in the path", "GET /\xff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
      {"0xFF in a campaign id", "GET /api/v1/campaigns/%ff%fe HTTP/1.1\r\nHost: x\r\n" + bearer +
                                    "Connection: close\r\n\r\n"},
      {"0xFF in a query",
       "GET /api/v1/bank?q=%ff HTTP/1.1\r\nHost: x\r\n" + bearer + "Connection: close\r\n\r\n"},
      {"0xFF in an unknown route", "POST /api/v1/\xff\xfe HTTP/1.1\r\nHost: x\r\n" + bearer +
                                       "Content-Length: 0\r\nConnection: close\r\n\r\n"},
      {"0xFF in the body's operator paths",
       request_fuzzer::request("POST", "/api/v1/campaigns", "{\"operators\":[\"\xff\xfe\"]}",
                               token)},
      {"0xFF in the body's campaign id",
       request_fuzzer::request(
           "POST", "/api/v1/campaigns",
           "{\"operators\":[\"" + hostile_input_op.string() + "\"],\"campaign\":\"\xff\"}", token)},
      {"0xFF in an upload's file name",
       request_fuzzer::request("POST", "/api/v1/operators",
                               "{\"files\":{\"op_host/\xff.cpp\":\"x\"}}", token)},
      {"0xFF in an uploaded op.json",
       request_fuzzer::request("POST", "/api/v1/operators", upload_body("{\"name\":\"\xff\"}"),
                               token)},
      {"0xFF in the bearer token",
       "GET /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\r\n"
       "Connection: close\r\n\r\n"},
  };
  for (const auto& [what, request] : crashers) {
    INFO(what);
    const answer a = send_raw(f, request);
    CHECK(a.status >= 400);
    CHECK(a.status < 500);
    check_json_body(a);
    REQUIRE(healthy(f));
  }
}

TEST_CASE("a package with a link out of it is refused with 403 naming the file, not read") {
  aopt::testing::temp_dir root;
  const fs::path secret = root.path() / "secret.txt";
  std::ofstream(secret) << "TOP-SECRET-CONTENT";
  const fs::path pkg = root.path() / "ops" / "add_custom";
  fs::create_directories(pkg.parent_path());
  fs::copy(hostile_input_op, pkg, fs::copy_options::recursive);
  fs::remove(pkg / "op_kernel/add_custom.cpp");
  fs::create_symlink(secret, pkg / "op_kernel/add_custom.cpp");

  aopt::testing::server_fixture_options options;
  options.roots = {root.path() / "ops"};
  options.limits.max_body_bytes = 1 << 20;
  server_fixture f(options);
  const auto res =
      f.call("POST", "/api/v1/campaigns", nlohmann::json{{"operators", {pkg.string()}}}.dump());
  CHECK(res.status == 403);
  CHECK(res.error_text().find("op_kernel/add_custom.cpp -> " + secret.string()) !=
        std::string::npos);
  CHECK(res.body.find("TOP-SECRET") == std::string::npos);
  CHECK(f.campaigns->running_count() == 0);
  // The same package with a linked folder on the way.
  fs::remove(pkg / "op_kernel/add_custom.cpp");
  fs::rename(pkg / "op_kernel", root.path() / "kernel_elsewhere");
  std::ofstream(root.path() / "kernel_elsewhere/add_custom.cpp") << "TOP-SECRET-CONTENT";
  fs::create_directory_symlink(root.path() / "kernel_elsewhere", pkg / "op_kernel");
  const auto linked_dir =
      f.call("POST", "/api/v1/campaigns", nlohmann::json{{"operators", {pkg.string()}}}.dump());
  CHECK(linked_dir.status == 403);
  CHECK(linked_dir.body.find("TOP-SECRET") == std::string::npos);
}

TEST_CASE("connections beyond server.max_connections get 503 with Retry-After, freed they work") {
  aopt::testing::server_fixture_options options;
  options.limits.max_connections = 3;
  server_fixture f(options);
  REQUIRE(f.http->connections().max() == 3);
  net::io_context ioc;
  const net::ip::tcp::endpoint at(net::ip::make_address("127.0.0.1"),
                                  static_cast<uint16_t>(std::stoi(f.url.port)));
  std::vector<std::unique_ptr<net::ip::tcp::socket>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<net::ip::tcp::socket>(ioc));
    held.back()->connect(at);
  }
  // The fourth is answered at once, without sending a request.
  net::ip::tcp::socket extra(ioc);
  extra.connect(at);
  std::string text;
  boost::system::error_code ec;
  char buf[4096];
  for (size_t n; (n = extra.read_some(net::buffer(buf), ec)), !ec;) text.append(buf, n);
  CHECK(text.rfind("HTTP/1.1 503", 0) == 0);
  CHECK(text.find("Retry-After: 1") != std::string::npos);
  CHECK(text.find("server.max_connections") != std::string::npos);
  CHECK(f.http->connections().refused() >= 1);
  // Closing the held connections frees their slots once the server saw them go.
  held.clear();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (f.http->connections().open() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(f.http->connections().open() == 0);
  CHECK(healthy(f));
}

TEST_CASE("a seeded fuzz over the HTTP API and op.json finds no crash and no 500") {
  aopt::testing::server_fixture_options options;
  options.token = token;
  options.uploads = true;
  // An empty root: no campaign can start from a mutated path.
  aopt::testing::temp_dir empty_root;
  options.roots = {empty_root.path()};
  options.limits.max_body_bytes = 1 << 20;
  server_fixture f(options);
  const nlohmann::json op_json =
      nlohmann::json::parse(request_fuzzer::read_text(hostile_input_op / "op.json"));
  const std::vector<std::string> templates = request_fuzzer::api_templates(hostile_input_op, token);
  request_fuzzer fuzz(20261124, templates, op_json);
  constexpr int http_requests = 1500;
  constexpr int uploads = 500;
  int answered = 0, server_errors = 0;
  for (int i = 0; i < http_requests + uploads; ++i) {
    const std::string request =
        i < http_requests ? fuzz.next_request()
                          : request_fuzzer::request("POST", "/api/v1/operators",
                                                    upload_body(fuzz.next_op_json()), token);
    const answer a = send_raw(f, request);
    if (a.status != 0) ++answered;
    if (a.status >= 500) {
      ++server_errors;
      MESSAGE(
          ("request " + std::to_string(i) + " got " + std::to_string(a.status) + ": " + a.body));
    }
    check_json_body(a);
    if (i % 100 == 99) REQUIRE(healthy(f));
  }
  MESSAGE((std::to_string(http_requests + uploads) + " requests, " + std::to_string(answered) +
           " answered, " + std::to_string(server_errors) + " 5xx"));
  CHECK(server_errors == 0);
  CHECK(answered > (http_requests + uploads) / 2);
  REQUIRE(healthy(f));

  // op.json mutants loaded directly: each loads or is refused with a reason, nothing throws.
  aopt::testing::temp_dir pkg_dir;
  fs::copy(hostile_input_op, pkg_dir.path(), fs::copy_options::recursive);
  int loaded = 0, refused = 0;
  for (int i = 0; i < 2000; ++i) {
    // A new file each time: ext4 flushes a file truncated and rewritten when it is closed
    // (auto_da_alloc), which made the writes, not the loads, most of this loop's time.
    fs::remove(pkg_dir.path() / "op.json");
    std::ofstream(pkg_dir.path() / "op.json", std::ios::binary) << fuzz.next_op_json();
    aopt::result<aopt::npu::op_package> pkg = aopt::npu::load_op_package(pkg_dir.path());
    if (pkg.ok()) {
      ++loaded;
      for (const auto& t : pkg->spec.inputs) CHECK(t.numel() > 0);
    } else {
      ++refused;
      CHECK(!pkg.error().message().empty());
      CHECK(aopt::is_valid_utf8(aopt::dump_json(pkg.error().message())));
    }
  }
  MESSAGE(("op.json mutants: " + std::to_string(loaded) + " loaded, " + std::to_string(refused) +
           " refused"));
  CHECK(refused > 0);
}
