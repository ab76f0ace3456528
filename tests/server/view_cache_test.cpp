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
  CHECK(**b == R"({"n":1})");
  // The same serialized text is handed out, not a copy serialized again.
  CHECK(a->get() == b->get());
  auto c = cache.get("c1", 8, compute);
  REQUIRE(c.ok());
  CHECK(**c == R"({"n":2})");
  // Keys are independent.
  auto d = cache.get("c2", 8, compute);
  REQUIRE(d.ok());
  CHECK(**d == R"({"n":3})");
  // Errors are returned and not stored.
  auto failed = cache.get(
      "c3", 1, []() -> aopt::result<nlohmann::json> { return aopt::not_found("no campaign c3"); });
  CHECK(!failed.ok());
  auto later = cache.get("c3", 1, compute);
  REQUIRE(later.ok());
  CHECK(**later == R"({"n":4})");
}

TEST_CASE("view_cache text is the view's dump(), and follows an update") {
  aopt::server::view_cache cache;
  nlohmann::json view = {{"id", "c1"}, {"status", "running"}, {"evaluations", 3}};
  const auto compute = [&]() -> aopt::result<nlohmann::json> { return view; };
  auto before = cache.get("campaign/c1", 5, compute);
  REQUIRE(before.ok());
  CHECK(**before == view.dump());
  view["status"] = "done";
  view["evaluations"] = 4;
  // Same version: the stored text, even though the underlying view changed.
  auto stale = cache.get("campaign/c1", 5, compute);
  REQUIRE(stale.ok());
  CHECK(**stale == **before);
  auto after = cache.get("campaign/c1", 6, compute);
  REQUIRE(after.ok());
  CHECK(**after == view.dump());
  CHECK(**after != **before);
  // The text handed out earlier is not changed under its holder.
  CHECK(**before == R"({"evaluations":3,"id":"c1","status":"running"})");
}
