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
  aopt::server::episode_summary_cache episodes;
  auto v = aopt::server::campaign_view(**db, "nope", episodes);
  REQUIRE(!v.ok());
  CHECK(v.error().code() == aopt::status_code::not_found);
  auto list = aopt::server::campaign_list_view(**db, episodes);
  REQUIRE(list.ok());
  CHECK(list->empty());
}

TEST_CASE("campaign views survive records without a campaign budget") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  REQUIRE((*db)->put_campaign("no-config", {{"status", "done"}}).ok());
  REQUIRE(
      (*db)
          ->put_campaign("no-campaign", {{"status", "done"}, {"config", nlohmann::json::object()}})
          .ok());
  REQUIRE((*db)
              ->put_campaign("odd-budget", {{"status", "done"},
                                            {"operators", "not a list"},
                                            {"config", {{"campaign", {{"budget", "forty"}}}}}})
              .ok());
  REQUIRE((*db)->put_campaign("config-array", {{"status", "done"}, {"config", {1, 2}}}).ok());
  aopt::server::episode_summary_cache episodes;
  for (const char* id : {"no-config", "no-campaign", "odd-budget", "config-array"}) {
    INFO(id);
    auto v = aopt::server::campaign_view(**db, id, episodes);
    REQUIRE_MESSAGE(v.ok(), v.error().to_string());
    CHECK((*v)["budget"] == 0);
    CHECK((*v)["operators"] == 0);
    CHECK((*v)["progress"] == 0.0);
  }
  auto list = aopt::server::campaign_list_view(**db, episodes);
  REQUIRE(list.ok());
  CHECK(list->size() == 4);
}
