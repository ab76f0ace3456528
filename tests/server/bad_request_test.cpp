// The daemon's HTTP server, in process on a loopback port, against requests it must refuse:
// each gets a 4xx with a reason, and the server goes on answering.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include "daemon_process.hpp"
#include "server_fixture.hpp"

namespace {

using aopt::testing::server_fixture;
const std::string corpus = aopt::testing::corpus_dir();

}  // namespace

TEST_CASE("malformed requests get a 4xx with a reason and the server keeps answering") {
  server_fixture f;

  SUBCASE("an oversized body is refused with 413") {
    const std::string body = "{\"operators\": [\"" + std::string(4000, 'a') + "\"]}";
    const auto res = f.call("POST", "/api/v1/campaigns", body);
    CHECK(res.status == 413);
    CHECK(res.error_text().find("max_body_bytes") != std::string::npos);
  }
  SUBCASE("an oversized header block is refused with 431") {
    const std::string answer =
        f.raw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(4000, 'p') + "\r\n\r\n");
    CHECK(answer.rfind("HTTP/1.1 431", 0) == 0);
  }
  SUBCASE("garbage instead of HTTP is refused with 400") {
    CHECK(f.raw("HELLO\r\n\r\n").rfind("HTTP/1.1 400", 0) == 0);
  }
  SUBCASE("malformed JSON is refused with 400 naming the problem") {
    const auto res = f.call("POST", "/api/v1/campaigns", "{\"operators\": [");
    CHECK(res.status == 400);
    CHECK(res.error_text().find("malformed JSON") != std::string::npos);
  }
  SUBCASE("a body that is JSON but not a campaign is refused with 400") {
    CHECK(f.call("POST", "/api/v1/campaigns", "[1,2]").status == 400);
    CHECK(f.call("POST", "/api/v1/campaigns", "{\"operators\": []}").status == 400);
    const auto unknown = f.call("POST", "/api/v1/campaigns",
                                "{\"operators\": [\"" + corpus +
                                    "/level1/add_custom\"], "
                                    "\"colour\": 1}");
    CHECK(unknown.status == 400);
    CHECK(unknown.error_text().find("colour") != std::string::npos);
    const auto bad_budget = f.call("POST", "/api/v1/campaigns",
                                   "{\"operators\": [\"" + corpus +
                                       "/level1/add_custom\"], "
                                       "\"budget\": -3}");
    CHECK(bad_budget.status == 400);
    const auto bad_set = f.call("POST", "/api/v1/campaigns",
                                "{\"operators\": [\"" + corpus +
                                    "/level1/add_custom\"], "
                                    "\"set\": [\"storage.db=/tmp/x\"]}");
    CHECK(bad_set.status == 400);
  }
  SUBCASE("an unknown campaign is 404 for every route") {
    CHECK(f.call("GET", "/api/v1/campaigns/nope").status == 404);
    CHECK(f.call("POST", "/api/v1/campaigns/nope/pause").status == 404);
    CHECK(f.call("POST", "/api/v1/campaigns/nope/resume").status == 404);
    CHECK(f.call("POST", "/api/v1/campaigns/nope/cancel").status == 404);
    CHECK(f.call("GET", "/api/v1/campaigns/nope/operators/add_custom").status == 404);
    CHECK(f.call("GET", "/api/v1/bank/nope").status == 404);
    CHECK(f.call("GET", "/api/v1/nothing-here").status == 404);
  }
  SUBCASE("paths outside the roots are refused with 403, traversal included") {
    for (const std::string& p :
         {std::string("/etc"), corpus + "/../CMakeLists.txt", corpus + "/level1/../../config"}) {
      INFO(p);
      const auto res =
          f.call("POST", "/api/v1/campaigns", nlohmann::json{{"operators", {p}}}.dump());
      CHECK(res.status == 403);
      CHECK(res.error_text().find("outside") != std::string::npos);
    }
  }
  SUBCASE("wrong methods and encoded traversal in the path are refused") {
    CHECK(f.call("DELETE", "/api/v1/campaigns").status == 405);
    CHECK(f.call("GET", "/%2e%2e/CMakeLists.txt").status == 400);
    CHECK(f.call("GET", "/api/v1/events?since=abc").status == 400);
  }
  SUBCASE("a path below a dashboard file is 404, not the file") {
    CHECK(f.call("GET", "/style.css").status == 200);
    CHECK(f.call("GET", "/style.css/anything").status == 404);
    CHECK(f.call("GET", "/index.html/x/y").status == 404);
    CHECK(f.call("GET", "/nothing/app.js").status == 404);
  }
  CHECK(f.call("GET", "/healthz").status == 200);
  CHECK(f.campaigns->running_count() == 0);
}

TEST_CASE("a token-protected server admits only the right bearer token") {
  server_fixture f("s3cret-token");
  CHECK(f.call("GET", "/api/v1/campaigns").status == 401);
  CHECK(f.call("GET", "/api/v1/campaigns", "", "wrong-token").status == 401);
  CHECK(f.call("GET", "/metrics", "", "s3cret-tokeN").status == 401);
  CHECK(f.call("GET", "/api/v1/campaigns", "", "s3cret-token").status == 200);
  CHECK(f.call("GET", "/metrics", "", "s3cret-token").status == 200);
  // Liveness needs no token.
  CHECK(f.call("GET", "/healthz").status == 200);
}

TEST_CASE("aopt serve refuses a non-loopback listener without a token and enforces one with it") {
  aopt::testing::temp_dir dir;
  const std::vector<std::string> args = {"--listen", "0.0.0.0:0", "--db",
                                         (dir.path() / "db").string()};
  {
    aopt::testing::daemon_process refused(args, {"AOPT_TOKEN="});
    CHECK(!refused.wait_ready());
    const int st = refused.wait();
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 2);
  }
  aopt::testing::daemon_process guarded(args, {"AOPT_TOKEN=tok-123"});
  REQUIRE(guarded.wait_ready());
  auto url = aopt::server::parse_server_url(guarded.url());
  REQUIRE(url.ok());
  auto missing = aopt::server::http_call(*url, "GET", "/api/v1/campaigns", "", "");
  REQUIRE(missing.ok());
  CHECK(missing->status == 401);
  auto wrong = aopt::server::http_call(*url, "GET", "/api/v1/campaigns", "", "tok-124");
  REQUIRE(wrong.ok());
  CHECK(wrong->status == 401);
  auto right = aopt::server::http_call(*url, "GET", "/api/v1/campaigns", "", "tok-123");
  REQUIRE(right.ok());
  CHECK(right->status == 200);
  guarded.signal(SIGTERM);
  const int st = guarded.wait();
  CHECK(WIFEXITED(st));
}
