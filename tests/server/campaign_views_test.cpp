#include <doctest/doctest.h>

#include "server/campaign_views.hpp"
#include "support/temp_dir.hpp"

TEST_CASE("bank_view searches tuple text and ranks by words found") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  REQUIRE((*db)
              ->put_tuple("t1", {{"title", "Double buffering"},
                                 {"bottleneck", "MTE2 and vector do not overlap"},
                                 {"description", "use BUFFER_NUM 2"}})
              .ok());
  REQUIRE((*db)
              ->put_tuple("t2", {{"title", "Merge barriers"},
                                 {"bottleneck", "PipeBarrier stalls the vector pipe"},
                                 {"embedding", {0.1, 0.2}}})
              .ok());
  auto all = aopt::server::bank_view(**db, "", 10);
  REQUIRE(all.ok());
  CHECK((*all)["total"] == 2);
  auto hit = aopt::server::bank_view(**db, "vector OVERLAP", 10);
  REQUIRE(hit.ok());
  REQUIRE((*hit)["tuples"].size() == 2);
  CHECK((*hit)["tuples"][0]["id"] == "t1");
  CHECK((*hit)["tuples"][0]["score"] == 2);
  auto none = aopt::server::bank_view(**db, "matmul", 10);
  REQUIRE(none.ok());
  CHECK((*none)["total"] == 0);
  auto limited = aopt::server::bank_view(**db, "", 1);
  CHECK((*limited)["tuples"].size() == 1);

  auto t = aopt::server::tuple_view(**db, "t2");
  REQUIRE(t.ok());
  CHECK(!t->contains("embedding"));
  CHECK((*t)["title"] == "Merge barriers");
  CHECK(!aopt::server::tuple_view(**db, "t3").ok());
}

TEST_CASE("campaign_view reports an unknown campaign as not_found") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  auto v = aopt::server::campaign_view(**db, "nope");
  REQUIRE(!v.ok());
  CHECK(v.error().code() == aopt::status_code::not_found);
  auto list = aopt::server::campaign_list_view(**db);
  REQUIRE(list.ok());
  CHECK(list->empty());
}
