#include <doctest/doctest.h>

#include "server/access_policy.hpp"

using aopt::server::access_policy;

TEST_CASE("access_policy admits the exact bearer token only") {
  const access_policy p("abc123");
  CHECK(p.token_required());
  CHECK(p.admits("Bearer abc123"));
  CHECK(p.admits("bearer abc123"));
  CHECK(!p.admits(""));
  CHECK(!p.admits("Bearer abc12"));
  CHECK(!p.admits("Bearer abc1234"));
  CHECK(!p.admits("Basic abc123"));
  CHECK(!p.admits("abc123"));
}

TEST_CASE("access_policy without a token admits everyone") {
  const access_policy open("");
  CHECK(!open.token_required());
  CHECK(open.admits(""));
}

TEST_CASE("constant_time_equals compares contents") {
  CHECK(aopt::server::constant_time_equals("same", "same"));
  CHECK(!aopt::server::constant_time_equals("same", "sane"));
  CHECK(!aopt::server::constant_time_equals("same", "same "));
}
