// `aopt llm check` run as a user would, against the stub endpoint on loopback.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/subprocess.hpp"
#include "support/openai_stub_server.hpp"

namespace {

namespace test = aopt::test;

aopt::subprocess_result llm_check(const std::string& base_url, std::vector<std::string> sets,
                                  std::vector<std::string> environment = {}) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY,
            "llm",
            "check",
            "--set",
            "llm.base_url=" + base_url,
            "--set",
            "llm.connect_timeout_s=5",
            "--set",
            "llm.timeout_s=10"};
  for (const std::string& s : sets) {
    o.argv.push_back("--set");
    o.argv.push_back(s);
  }
  o.environment = std::move(environment);
  o.limits.wall_seconds = 60;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("aopt llm check reports a working endpoint without printing the API key") {
    test::openai_stub_server server;
    server.script({test::reply("pong", 21, 1)});
    auto r = llm_check(server.base_url(),
                       {"llm.model=stub-model", "llm.embedding_model=stub-embed",
                        "llm.api_key_env=AOPT_CHECK_KEY"},
                       {"AOPT_CHECK_KEY=sk-check-secret-123"});
    CHECK_MESSAGE(r.exit_code == 0, (r.stdout_text + r.stderr_text));
    const std::string out = r.stdout_text;
    CHECK(out.find("stub-model answered \"pong\" (21 prompt + 1 completion tokens)") !=
          std::string::npos);
    CHECK(out.find("64 dimensions") != std::string::npos);
    CHECK(out.find("$AOPT_CHECK_KEY is set") != std::string::npos);
    CHECK(out.find("the endpoint works") != std::string::npos);
    CHECK((out + r.stderr_text).find("sk-check-secret-123") == std::string::npos);
    CHECK(server.chat_requests() == 1);
    CHECK(server.embedding_requests() == 1);
    REQUIRE(server.received().front().headers.count("authorization") == 1);
  }

  TEST_CASE("aopt llm check exits 1 naming the reason when nothing listens at the endpoint") {
    std::string url;
    {
      test::openai_stub_server closed;
      url = closed.base_url();
    }
    auto r = llm_check(url, {"llm.model=stub-model"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.stdout_text.find("chat          FAILED: connect_error") != std::string::npos,
                  r.stdout_text);
    CHECK(r.stdout_text.find("not usable") != std::string::npos);
  }

  TEST_CASE("aopt llm check exits 1 when the endpoint answers with something that is not JSON") {
    test::openai_stub_server server;
    server.script({test::malformed_body()});
    auto r = llm_check(server.base_url(), {"llm.model=stub-model"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.stdout_text.find("FAILED: malformed_body") != std::string::npos, r.stdout_text);
    CHECK(r.stdout_text.find("embedding     skipped") != std::string::npos);
  }

  TEST_CASE("aopt llm check exits 2 when no chat model is configured") {
    test::openai_stub_server server;
    auto r = llm_check(server.base_url(), {});
    CHECK(r.exit_code == 2);
    CHECK(r.stderr_text.find("llm.model is empty") != std::string::npos);
    CHECK(server.requests() == 0);
  }

}  // TEST_SUITE
