#include "server/episode_summary_cache.hpp"

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

namespace {

void store_state(aopt::storage::store& db, const aopt::agent::episode_state& s) {
  aopt::storage::transition t;
  t.campaign = s.campaign;
  t.op = s.op_name;
  t.episode_state = s;
  REQUIRE(db.commit_transition(t).ok());
}

}  // namespace

TEST_CASE("episode_summary_cache follows every stored change and drops the sources") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  aopt::agent::episode_state a;
  a.campaign = "c";
  a.op_name = "add_custom";
  a.best_kernel = "kernel text";
  a.baseline_us = 10;
  a.best_us = 8;
  aopt::agent::episode_state b = a;
  b.op_name = "relu_custom";
  store_state(**db, a);
  store_state(**db, b);

  aopt::server::episode_summary_cache cache;
  auto first = cache.load(**db, "c");
  REQUIRE(first.ok());
  REQUIRE(first->size() == 2);
  CHECK((*first)[0].op_name == "add_custom");
  CHECK((*first)[0].best_us == 8);
  CHECK((*first)[0].best_kernel.empty());

  a.best_us = 5;
  a.candidates = 3;
  store_state(**db, a);
  auto second = cache.load(**db, "c");
  REQUIRE(second.ok());
  CHECK((*second)[0].best_us == 5);
  CHECK((*second)[0].candidates == 3);
  CHECK((*second)[1].best_us == 8);
  CHECK(cache.load(**db, "other")->empty());
}
