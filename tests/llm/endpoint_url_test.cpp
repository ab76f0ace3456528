#include <doctest/doctest.h>

#include "llm/endpoint_url.hpp"

namespace llm = aopt::llm;

TEST_SUITE("llm") {
  TEST_CASE("parse_endpoint_url reads scheme, host, port and base path") {
    auto plain = llm::parse_endpoint_url("http://127.0.0.1:8080/v1/");
    REQUIRE(plain.ok());
    CHECK(plain->scheme == "http");
    CHECK(plain->host == "127.0.0.1");
    CHECK(plain->port == 8080);
    CHECK(plain->path == "/v1");
    CHECK_FALSE(plain->tls());
    CHECK(plain->host_header() == "127.0.0.1:8080");
    CHECK(plain->target("/chat/completions") == "/v1/chat/completions");

    auto secure = llm::parse_endpoint_url("https://api.deepseek.com");
    REQUIRE(secure.ok());
    CHECK(secure->tls());
    CHECK(secure->port == 443);
    CHECK(secure->path.empty());
    CHECK(secure->host_header() == "api.deepseek.com");
    CHECK(secure->to_string() == "https://api.deepseek.com:443");

    auto v6 = llm::parse_endpoint_url("http://[::1]:11434/v1");
    REQUIRE(v6.ok());
    CHECK(v6->host == "::1");
    CHECK(v6->port == 11434);
    CHECK(v6->host_header() == "[::1]:11434");
  }

  TEST_CASE("parse_endpoint_url refuses what it cannot use, naming the problem") {
    auto check_refused = [](const char* url, const char* why) {
      auto parsed = llm::parse_endpoint_url(url);
      REQUIRE_FALSE(parsed.ok());
      CHECK(parsed.error().code() == aopt::status_code::invalid_argument);
      CHECK_MESSAGE(parsed.error().message().find(why) != std::string::npos,
                    parsed.error().message());
    };
    check_refused("ftp://host/v1", "http:// or https://");
    check_refused("http:///v1", "no host");
    check_refused("http://host:0/v1", "bad port");
    check_refused("http://host:99999", "bad port");
    check_refused("http://host:/v1", "bad port");
    check_refused("http://host/v1?key=1", "no query");
    check_refused("http://[::1/v1", "unterminated");
    auto secret = llm::parse_endpoint_url("https://user:hunter2@host/v1");
    REQUIRE_FALSE(secret.ok());
    CHECK(secret.error().message().find("hunter2") == std::string::npos);
  }

}  // TEST_SUITE
