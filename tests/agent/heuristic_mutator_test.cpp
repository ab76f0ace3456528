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

double latency_of_tile(const tunable_values& v) {
  return 100.0 - std::log2(static_cast<double>(v.at("TILE_LENGTH"))) - v.at("BUFFER_NUM");
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

  TEST_CASE("after a UB failure the mutator proposes nothing in the region it spans") {
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 1024;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    heuristic_mutator m(*ts, {8, 2, 7, 2});
    m.report(current_values(*ts), 100.0);
    std::vector<tunable_values> failed;
    for (int i = 0; i < 60; ++i) {
      std::optional<tunable_values> v = m.propose();
      if (!v) break;
      for (const tunable_values& f : failed) {
        // Never again at least as large a tile and as many buffers (block dims free).
        CHECK_FALSE((v->at("TILE_LENGTH") >= f.at("TILE_LENGTH") &&
                     v->at("BUFFER_NUM") >= f.at("BUFFER_NUM")));
      }
      const bool overflows = v->at("TILE_LENGTH") * v->at("BUFFER_NUM") > 4096;
      if (overflows) failed.push_back(*v);
      m.report(*v, overflows ? std::nullopt : std::optional<double>(latency_of_tile(*v)),
               overflows ? "ub_overflow" : "");
    }
    CHECK(!failed.empty());
    // At most one failure per (tile, depth) pair beyond the bound, whatever the block dims.
    CHECK(failed.size() <= 7);
  }

  TEST_CASE("after k failures blamed on one value, no value set holds it again") {
    // SPLIT has no role the mutator knows; SPLIT = 48 fails whatever the other tunable is.
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t SPLIT = 40;   // tunable: range [32, 64]
constexpr uint32_t WAYS = 4;     // tunable: range [1, 8]
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    mutator_options o;
    o.seed = 3;
    o.initial_samples = 0;
    o.region_rejections = 2;
    heuristic_mutator m(*ts, o);
    m.report({{"SPLIT", 40}, {"WAYS", 4}}, 10.0);
    m.report({{"SPLIT", 40}, {"WAYS", 5}}, 11.0);
    m.report({{"SPLIT", 48}, {"WAYS", 4}}, std::nullopt, "tiling_failed");
    // One blamed failure is not yet a region: a value set elsewhere may still hold 48.
    CHECK_FALSE(m.excluded({{"SPLIT", 48}, {"WAYS", 7}}));
    m.report({{"SPLIT", 48}, {"WAYS", 5}}, std::nullopt, "tiling_failed");
    CHECK(m.excluded({{"SPLIT", 48}, {"WAYS", 7}}));
    CHECK_FALSE(m.excluded({{"SPLIT", 47}, {"WAYS", 7}}));
    for (int i = 0; i < 100; ++i) {
      std::optional<tunable_values> v = m.propose();
      if (!v) break;
      CHECK(v->at("SPLIT") != 48);
      m.report(*v, 12.0 + i);
    }
    // The learned region survives a save and load.
    result<heuristic_mutator> loaded = heuristic_mutator::load(m.save());
    REQUIRE(loaded.ok());
    CHECK(loaded->excluded({{"SPLIT", 48}, {"WAYS", 1}}));
  }

  TEST_CASE("a region screened before the device costs one screening, not thousands") {
    // BLOCK_NUM is named like a block dim, but synthesis found it to be a tile count: the
    // block-dim screening must leave it alone. BLOCK_DIM's domain reaches past the cores.
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;     // tunable: range [1, 64]  core cap: passed to SetBlockDim
constexpr uint32_t BLOCK_NUM = 1024;  // tunable: range [1, 4096]  tile count: reaches tiling field blockNum
constexpr uint32_t TILE_LENGTH = 1024;  // tunable: range [16, 32768] step 16
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    CHECK(tunable_role((*ts)[1]) == tiling_role::tile_count);
    admissibility_check check = make_ub_capacity_check(*ts, 64 * 1024, 8, 40);
    mutator_options o;
    o.seed = 9;
    o.cores = 40;
    heuristic_mutator m(*ts, o, check);
    m.report(current_values(*ts), 50.0);
    for (int i = 0; i < 60; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      CHECK(v->at("BLOCK_DIM") <= 40);  // within the cores by construction
      CHECK(v->at("TILE_LENGTH") * 8 <= 64 * 1024);
      m.report(*v, 50.0 - 0.1 * i);
    }
    CHECK(m.rejected().count("bad_block_dim (predicted)") == 0);
    const auto ub = m.rejected().find("ub_overflow (predicted)");
    CHECK((ub == m.rejected().end() || ub->second <= 6));
  }

  TEST_CASE("a mostly infeasible space switches to moves feasible by construction") {
    // SPLIT must be a multiple of 32 (the device says misaligned otherwise); the space-filling
    // samples and perturbations do not know that, the constructive moves keep the start's
    // alignment block (256).
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t SPLIT = 256;   // tunable: range [1, 4096]
constexpr uint32_t WAYS = 4;      // tunable: range [1, 8]
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    mutator_options o;
    o.seed = 21;
    o.initial_samples = 6;
    heuristic_mutator m(*ts, o);
    m.report(current_values(*ts), 100.0);
    int feasible_late = 0;
    int late = 0;
    bool switched = false;
    for (int i = 0; i < 30; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      const bool ok = v->at("SPLIT") % 32 == 0;
      if (m.last_change().rfind("feasible by construction", 0) == 0) {
        switched = true;
        CHECK(ok);
      }
      if (i >= 15) {
        ++late;
        feasible_late += ok ? 1 : 0;
      }
      m.report(*v, ok ? std::optional<double>(100.0 - v->at("WAYS")) : std::nullopt,
               ok ? "" : "misaligned");
    }
    CHECK(switched);
    CHECK(2 * feasible_late >= late);
  }

  TEST_CASE("repair moves the tunables that reduce the UB bytes one at a time, then together") {
    result<std::vector<tunable>> ts = parse_tunables(R"(// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 8192;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 2;      // tunable: choice {1, 2}
// EVOLVE-BLOCK-END
)");
    REQUIRE(ts.ok());
    admissibility_check check = make_ub_capacity_check(*ts, 192 * 1024, 8, 40);
    mutator_options o;
    o.seed = 4;
    o.cores = 40;
    heuristic_mutator m(*ts, o, check);
    // 128 KiB of tiles pass the screening; the device found more buffers than it sees.
    m.report(current_values(*ts), std::nullopt, "ub_overflow");
    m.begin_repair("ub_overflow");
    std::vector<tunable_values> first;
    for (int i = 0; i < 4; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      first.push_back(*v);
      m.report(*v, std::nullopt, "ub_overflow");
    }
    // One tunable at a time: the tile halved, the buffers 2 -> 1, the tile quartered, then both.
    CHECK(first[0] == tunable_values{{"BLOCK_DIM", 8}, {"TILE_LENGTH", 4096}, {"BUFFER_NUM", 2}});
    CHECK(first[1] == tunable_values{{"BLOCK_DIM", 8}, {"TILE_LENGTH", 8192}, {"BUFFER_NUM", 1}});
    CHECK(first[2] == tunable_values{{"BLOCK_DIM", 8}, {"TILE_LENGTH", 2048}, {"BUFFER_NUM", 2}});
    CHECK(first[3] == tunable_values{{"BLOCK_DIM", 8}, {"TILE_LENGTH", 4096}, {"BUFFER_NUM", 1}});
    // Once a move works the rest of the plan is dropped: the search goes on from there.
    heuristic_mutator again(*ts, o, check);
    again.report(current_values(*ts), std::nullopt, "ub_overflow");
    again.begin_repair("ub_overflow");
    std::optional<tunable_values> repaired = again.propose();
    REQUIRE(repaired.has_value());
    CHECK(again.last_change().rfind("repair: ", 0) == 0);
    again.report(*repaired, 40.0);
    REQUIRE(again.propose().has_value());
    CHECK(again.last_change().rfind("repair: ", 0) != 0);
  }

  TEST_CASE("repair after bad_block_dim moves the core cap only, after misaligned the tile only") {
    mutator_options o;
    o.seed = 4;
    o.cores = 40;
    o.element_bytes = 2;  // 16 half elements per 32-byte block
    // The first two proposals after the baseline failed with `kind`, at BLOCK_DIM = `blocks`.
    const auto first_moves = [&](int blocks, const std::string& kind) {
      result<std::vector<tunable>> ts = parse_tunables(
          "// EVOLVE-BLOCK-START\n"
          "constexpr uint32_t BLOCK_DIM = " +
          std::to_string(blocks) +
          ";      // tunable: range [1, 128]\n"
          "constexpr uint32_t TILE_LENGTH = 1000;  // tunable: range [16, 32768]\n"
          "constexpr uint32_t BUFFER_NUM = 2;      // tunable: choice {1, 2}\n"
          "// EVOLVE-BLOCK-END\n");
      REQUIRE(ts.ok());
      heuristic_mutator m(*ts, o);
      m.report(current_values(*ts), std::nullopt, kind);
      m.begin_repair(kind);
      std::vector<tunable_values> moves;
      for (int i = 0; i < 2; ++i) {
        std::optional<tunable_values> v = m.propose();
        REQUIRE(v.has_value());
        CHECK(m.last_change().rfind("repair: ", 0) == 0);
        moves.push_back(*v);
        m.report(*v, std::nullopt, kind);
      }
      return moves;
    };
    // 64 blocks on 40 cores: the core count, then half; tiles and buffers are not the failure.
    const auto cores = first_moves(64, "bad_block_dim");
    CHECK(cores[0] == tunable_values{{"BLOCK_DIM", 40}, {"TILE_LENGTH", 1000}, {"BUFFER_NUM", 2}});
    CHECK(cores[1] == tunable_values{{"BLOCK_DIM", 32}, {"TILE_LENGTH", 1000}, {"BUFFER_NUM", 2}});
    // 1000 halves are 2000 bytes: the aligned neighbours 992 and 1008; the core cap stays.
    const auto aligned = first_moves(8, "misaligned");
    CHECK(aligned[0] == tunable_values{{"BLOCK_DIM", 8}, {"TILE_LENGTH", 992}, {"BUFFER_NUM", 2}});
    CHECK(aligned[1] == tunable_values{{"BLOCK_DIM", 8}, {"TILE_LENGTH", 1008}, {"BUFFER_NUM", 2}});
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
