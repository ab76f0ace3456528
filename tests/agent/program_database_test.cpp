#include "agent/episode/program_database.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace aopt;
using namespace aopt::agent;

namespace {

program prog(const std::string& t, double latency, uint64_t seq) {
  return program{t, "K", latency, seq, {}};
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("an island keeps its fastest programs and the draw of a step is reproducible") {
    program_database_options o;
    o.islands = 2;
    o.island_size = 2;
    o.migration_interval = 100;
    program_database db(o);
    db.seed(prog("T0", 100, 0));
    db.add(0, prog("T1", 90, 1));
    db.add(0, prog("T2", 95, 2));
    db.add(0, prog("T3", 99, 3));  // slower than both kept: dropped
    CHECK(db.size() == 3);         // island 0: T1, T2; island 1: T0
    std::set<std::string> drawn;
    for (uint64_t step = 0; step < 40; step += 2) {
      const program& p = db.select(step, 7);
      CHECK(db.select(step, 7).tiling == p.tiling);
      drawn.insert(p.tiling);
    }
    // Island 0's best mostly, its other member or an archive elite sometimes; never T3.
    CHECK(drawn.count("T1") == 1);
    CHECK(drawn.count("T3") == 0);
    CHECK(db.select(1, 7).tiling != "T3");
  }

  TEST_CASE("migration copies each island's best into the next island") {
    program_database_options o;
    o.islands = 2;
    o.migration_interval = 2;
    o.explore = 0;
    o.elite = 0;
    program_database db(o);
    db.seed(prog("T0", 100, 0));
    db.add(0, prog("T1", 50, 1));
    CHECK(db.select(1, 1).tiling == "T0");  // island 1 has not seen T1 yet
    db.add(0, prog("T2", 60, 2));           // the second addition migrates
    CHECK(db.select(1, 1).tiling == "T1");
  }

  TEST_CASE("a saved database loads back equal, and anything else is refused") {
    program_database db;
    db.seed(prog("T0", 100, 0));
    db.add(1, prog("T1", 80, 1));
    result<program_database> back = program_database::load(db.save());
    REQUIRE(back.ok());
    CHECK(back->save() == db.save());
    CHECK(program_database::load(nlohmann::json::object()).error().code() ==
          status_code::invalid_argument);
    CHECK_FALSE(program_database::load({{"kind", "program-database"}, {"islands", {}}}).ok());
  }
}  // TEST_SUITE
