#include <doctest/doctest.h>

#include "server/url.hpp"

using aopt::server::parse_target;

TEST_CASE("parse_target splits and decodes segments and query parameters") {
  auto t = parse_target("/api/v1//bank/?q=double+buffer%21&limit=5&q=last");
  REQUIRE(t.ok());
  CHECK(t->segments == std::vector<std::string>{"api", "v1", "bank"});
  CHECK(t->query.at("q") == "last");
  CHECK(t->query.at("limit") == "5");
  auto decoded = parse_target("/api/v1/campaigns/a%20b");
  REQUIRE(decoded.ok());
  CHECK(decoded->segments.back() == "a b");
}

TEST_CASE("parse_target refuses traversal, encoded slashes, NULs and broken escapes") {
  CHECK(!parse_target("/a/../b").ok());
  CHECK(!parse_target("/a/%2e%2E/b").ok());
  CHECK(!parse_target("/a%2fb").ok());
  CHECK(!parse_target("/a%00").ok());
  CHECK(!parse_target("/a%4").ok());
  CHECK(!parse_target("/a%zz").ok());
  CHECK(!parse_target("relative").ok());
}

TEST_CASE("parse_target refuses bytes that are not UTF-8, encoded or raw, and keeps UTF-8") {
  CHECK(!parse_target("/%ff").ok());
  CHECK(!parse_target("/api/v1/campaigns/\xff").ok());
  CHECK(!parse_target("/api/v1/bank?q=%c3").ok());
  CHECK(!parse_target("/api/v1/bank?%fe=1").ok());
  auto utf8 = parse_target("/api/v1/bank?q=caf%C3%A9");
  REQUIRE(utf8.ok());
  CHECK(utf8->query.at("q") == "caf\xC3\xA9");
}
