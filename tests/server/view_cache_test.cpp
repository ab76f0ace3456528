#include <doctest/doctest.h>

#include "server/view_cache.hpp"

TEST_CASE("view_cache recomputes a view only when its version changes") {
  aopt::server::view_cache cache;
  int computed = 0;
  const auto compute = [&]() -> aopt::result<nlohmann::json> {
    return nlohmann::json{{"n", ++computed}};
  };
  auto a = cache.get("c1", 7, compute);
  auto b = cache.get("c1", 7, compute);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(computed == 1);
  CHECK((**b)["n"] == 1);
  auto c = cache.get("c1", 8, compute);
  CHECK((**c)["n"] == 2);
  // Keys are independent.
  auto d = cache.get("c2", 8, compute);
  CHECK((**d)["n"] == 3);
  // Errors are returned and not stored.
  auto failed = cache.get(
      "c3", 1, []() -> aopt::result<nlohmann::json> { return aopt::not_found("no campaign c3"); });
  CHECK(!failed.ok());
  auto later = cache.get("c3", 1, compute);
  REQUIRE(later.ok());
  CHECK((**later)["n"] == 4);
}
