#include "agent/heuristics/heuristic_mutator.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

using namespace aopt;
using namespace aopt::agent;

namespace {

const char* kTiling = R"(// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;         // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048;    // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 1;        // tunable: choice {1, 2}
constexpr uint32_t CHUNK_LENGTH = 1000;   // tunable: range [8, 4000] step 4
// EVOLVE-BLOCK-END
)";

std::vector<tunable> tunables() {
  result<std::vector<tunable>> t = parse_tunables(kTiling);
  REQUIRE(t.ok());
  return *t;
}

// A synthetic latency landscape with its optimum at BLOCK_DIM 24, TILE_LENGTH 8192, BUFFER_NUM 2.
double latency(const tunable_values& v) {
  return 10.0 + std::abs(v.at("BLOCK_DIM") - 24) +
         3.0 * std::abs(std::log2(v.at("TILE_LENGTH") / 8192.0)) +
         (v.at("BUFFER_NUM") == 2 ? 0.0 : 5.0) + std::abs(v.at("CHUNK_LENGTH") - 2000) / 500.0;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the heuristic mutator proposes in-domain, aligned, never repeated value sets") {
    std::vector<tunable> ts = tunables();
    heuristic_mutator m(ts, {8, 2, 3, 4});  // float tensors: tile multiples of 8 elements
    std::set<tunable_values> seen = {current_values(ts)};
    m.report(current_values(ts), latency(current_values(ts)));
    for (int i = 0; i < 60; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      for (const tunable& t : ts) REQUIRE(t.admits(v->at(t.name)));
      CHECK(v->at("CHUNK_LENGTH") % 8 == 0);
      CHECK(seen.insert(*v).second);
      m.report(*v, latency(*v));
    }
  }

  TEST_CASE("the heuristic mutator keeps a bounded population sorted by latency") {
    heuristic_mutator m(tunables(), {4, 2, 1, 2});
    for (int i = 0; i < 20; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      m.report(*v, i % 3 == 0 ? std::nullopt : std::optional<double>(latency(*v)));
    }
    REQUIRE(m.population().size() == 4);
    for (size_t i = 1; i < m.population().size(); ++i) {
      CHECK(m.population()[i - 1].latency_us <= m.population()[i].latency_us);
    }
    CHECK(m.best()->latency_us == m.population().front().latency_us);
    CHECK(m.tried_count() == 21);
  }

  TEST_CASE("evolution improves on the initial values of a synthetic landscape") {
    std::vector<tunable> ts = tunables();
    heuristic_mutator m(ts, {8, 2, 11, 2});
    m.report(current_values(ts), latency(current_values(ts)));
    for (int i = 0; i < 40; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      m.report(*v, latency(*v));
    }
    CHECK(m.best()->latency_us < latency(current_values(ts)) - 8.0);
  }

  TEST_CASE("a saved mutator continues with exactly the same proposals") {
    heuristic_mutator a(tunables(), {6, 2, 5, 2});
    for (int i = 0; i < 10; ++i) {
      auto v = a.propose();
      REQUIRE(v.has_value());
      a.report(*v, i == 4 ? std::nullopt : std::optional<double>(latency(*v)));
    }
    nlohmann::json saved = nlohmann::json::parse(a.save().dump());  // through text, as persisted
    result<heuristic_mutator> b = heuristic_mutator::load(saved);
    REQUIRE(b.ok());
    CHECK(b->save() == a.save());
    for (int i = 0; i < 15; ++i) {
      auto va = a.propose();
      auto vb = b->propose();
      REQUIRE(va.has_value());
      REQUIRE(vb == va);
      CHECK(b->last_change() == a.last_change());
      a.report(*va, latency(*va));
      b->report(*vb, latency(*vb));
    }
  }

  TEST_CASE("the same seed gives the same proposals, another seed other ones") {
    auto run = [](uint64_t seed) {
      heuristic_mutator m(tunables(), {8, 2, seed, 2});
      std::vector<tunable_values> out;
      for (int i = 0; i < 8; ++i) {
        auto v = m.propose();
        REQUIRE(v.has_value());
        m.report(*v, latency(*v));
        out.push_back(*v);
      }
      return out;
    };
    CHECK(run(9) == run(9));
    CHECK(run(9) != run(10));
  }

  TEST_CASE("a tiny search space is exhausted, then propose returns nothing") {
    result<std::vector<tunable>> ts = parse_tunables(
        "// EVOLVE-BLOCK-START\nconstexpr int BUFFER_NUM = 1;  // tunable: choice {1, 2}\n// "
        "EVOLVE-BLOCK-END\n");
    REQUIRE(ts.ok());
    heuristic_mutator m(*ts, {});
    auto v = m.propose();
    REQUIRE(v.has_value());
    CHECK(v->at("BUFFER_NUM") == 2);
    m.report(*v, 1.0);
    CHECK_FALSE(m.propose().has_value());
  }

  TEST_CASE("the admissibility hook keeps tiles within the UB") {
    std::vector<tunable> ts = tunables();
    // 6 bytes per element (two half inputs, one half output), 64 KiB of UB.
    admissibility_check fits = make_ub_capacity_check(ts, 64 * 1024, 6);
    CHECK(fits({{"TILE_LENGTH", 8192}, {"BUFFER_NUM", 1}}).empty());
    CHECK(fits({{"TILE_LENGTH", 8192}, {"BUFFER_NUM", 2}}).rfind("ub_overflow (predicted)", 0) ==
          0);
    heuristic_mutator m(ts, {8, 2, 1, 2}, fits);
    for (int i = 0; i < 40; ++i) {
      auto v = m.propose();
      REQUIRE(v.has_value());
      CHECK(v->at("TILE_LENGTH") * v->at("BUFFER_NUM") * 6 <= 64 * 1024);
      m.report(*v, latency(*v));
    }
  }

  TEST_CASE("the seeded space-filling sample spreads over each tunable's whole range") {
    // A wide tile range (log-scaled: 10 octaves) and a block dim (linear), 8 samples: one per
    // stratum, so together they reach both ends of each axis, all distinct, none at the start.
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: range [64, 65536]
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    mutator_options o;
    o.seed = 11;
    o.initial_samples = 8;
    o.element_bytes = 4;
    heuristic_mutator m(*ts, o);
    std::set<int64_t> blocks;
    std::set<int64_t> tiles;
    for (int i = 0; i < 8; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      CHECK(m.last_change().rfind("space-filling sample", 0) == 0);
      blocks.insert(v->at("BLOCK_DIM"));
      tiles.insert(v->at("TILE_LENGTH"));
      CHECK(v->at("TILE_LENGTH") % 8 == 0);  // 32 bytes of float
    }
    CHECK(blocks.size() == 8);
    CHECK(tiles.size() == 8);
    // Strata of 39/8 ~ 4.9 block dims and 1.25 octaves of tile length, plus rounding.
    CHECK(*blocks.begin() <= 7);
    CHECK(*blocks.rbegin() >= 34);
    CHECK(std::log2(static_cast<double>(*tiles.begin())) <= 6 + 1.25 + 0.5);
    CHECK(std::log2(static_cast<double>(*tiles.rbegin())) >= 16 - 1.25 - 0.5);
    // The ninth proposal evolves (no more samples), and another seed samples other points.
    REQUIRE(m.propose().has_value());
    CHECK(m.last_change().rfind("space-filling sample", 0) != 0);
    o.seed = 12;
    heuristic_mutator other(*ts, o);
    std::set<int64_t> other_blocks;
    for (int i = 0; i < 8; ++i) other_blocks.insert(other.propose()->at("BLOCK_DIM"));
    CHECK(other_blocks != blocks);
  }

  TEST_CASE("tile counts move to divisors of the data, other tunables do not") {
    // 3072 elements: the counts in [1, 64] that divide them are 1 2 3 4 6 8 12 16 24 32 48 64.
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;  // tunable: range [1, 40]
constexpr uint32_t TILE_NUM = 8;   // tunable: range [1, 64]
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    mutator_options o;
    o.seed = 5;
    o.initial_samples = 4;
    o.data_elements = 3072;
    heuristic_mutator m(*ts, o);
    m.report(current_values(*ts), 100.0);
    std::set<int64_t> counts;
    bool block_not_divisor = false;
    for (int i = 0; i < 24; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      INFO(m.last_change());
      CHECK(3072 % v->at("TILE_NUM") == 0);
      counts.insert(v->at("TILE_NUM"));
      block_not_divisor = block_not_divisor || 3072 % v->at("BLOCK_DIM") != 0;
      m.report(*v, 100.0 - i);
    }
    CHECK(counts.size() >= 4);  // it moves between divisors, not around one
    CHECK(block_not_divisor);   // the rule is for tile counts only
    // Without the data size the same search proposes counts that leave a remainder.
    o.data_elements = 0;
    heuristic_mutator blind(*ts, o);
    blind.report(current_values(*ts), 100.0);
    bool remainder = false;
    for (int i = 0; i < 24 && !remainder; ++i) {
      std::optional<tunable_values> v = blind.propose();
      REQUIRE(v.has_value());
      remainder = 3072 % v->at("TILE_NUM") != 0;
      blind.report(*v, 100.0 - i);
    }
    CHECK(remainder);
  }

  TEST_CASE("loading a malformed mutator state names the problem") {
    CHECK_FALSE(heuristic_mutator::load(nlohmann::json::object()).ok());
    heuristic_mutator m(tunables(), {});
    nlohmann::json j = m.save();
    j["tried"] = nlohmann::json::array({nlohmann::json::array({1, 2})});
    result<heuristic_mutator> bad = heuristic_mutator::load(j);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message().find("tried") != std::string::npos);
  }

}  // TEST_SUITE
