#include "agent/tunables.hpp"

#include <doctest/doctest.h>

using namespace aopt;
using namespace aopt::agent;

namespace {

const char* kTiling = R"(namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048u;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}
constexpr int32_t ROWS = 16;            // tunable: range [8, 2048] step 8  rows per tile
// a comment line inside the block
// EVOLVE-BLOCK-END
constexpr uint32_t ALIGN_NUM = 16;
}
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("parse_tunables reads every kind of domain with its current value and line") {
    result<std::vector<tunable>> t = parse_tunables(kTiling);
    REQUIRE(t.ok());
    REQUIRE(t->size() == 4);
    CHECK((*t)[0].name == "BLOCK_DIM");
    CHECK((*t)[0].kind == tunable_kind::range);
    CHECK((*t)[0].lo == 1);
    CHECK((*t)[0].hi == 40);
    CHECK((*t)[0].line == 3);
    CHECK((*t)[1].kind == tunable_kind::pow2);
    CHECK((*t)[1].value == 2048);
    CHECK((*t)[1].domain().size() == 8);
    CHECK((*t)[2].choices == std::vector<int64_t>{1, 2});
    CHECK((*t)[3].step == 8);
    CHECK((*t)[3].admits(24));
    CHECK_FALSE((*t)[3].admits(20));
    CHECK((*t)[3].domain_text() == "range [8, 2048] step 8");
  }

  TEST_CASE("apply_values changes only the named literals") {
    result<std::string> out = apply_values(kTiling, {{"TILE_LENGTH", 8192}, {"BUFFER_NUM", 2}});
    REQUIRE(out.ok());
    std::string expected = kTiling;
    expected.replace(expected.find("2048u"), 4, "8192");
    expected.replace(expected.find("BUFFER_NUM = 1") + 13, 1, "2");
    CHECK(*out == expected);
    result<std::vector<tunable>> again = parse_tunables(*out);
    REQUIRE(again.ok());
    CHECK((*again)[1].value == 8192);
  }

  TEST_CASE("apply_values rejects unknown names and values outside the domain") {
    CHECK(apply_values(kTiling, {{"NOPE", 1}}).error().code() == status_code::invalid_argument);
    result<std::string> bad = apply_values(kTiling, {{"TILE_LENGTH", 3000}});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message().find("line 4") != std::string::npos);
  }

  TEST_CASE("parse_tunables errors name the line") {
    CHECK(parse_tunables("int x = 1;\n").error().code() == status_code::not_found);
    auto unterminated =
        parse_tunables("a\n// EVOLVE-BLOCK-START\nconstexpr int X = 1; // tunable: range [1, 2]\n");
    REQUIRE_FALSE(unterminated.ok());
    CHECK(unterminated.error().message().find("line 2") != std::string::npos);
    auto malformed = parse_tunables(
        "// EVOLVE-BLOCK-START\nconstexpr int X = 1; // tunable: between 1 and 2\n// "
        "EVOLVE-BLOCK-END\n");
    REQUIRE_FALSE(malformed.ok());
    CHECK(malformed.error().message().find("line 2") != std::string::npos);
    auto outside = parse_tunables(
        "// EVOLVE-BLOCK-START\nconstexpr int X = 5; // tunable: pow2 [1, 4]\n// "
        "EVOLVE-BLOCK-END\n");
    REQUIRE_FALSE(outside.ok());
    CHECK(outside.error().message().find("outside its domain") != std::string::npos);
    auto twice = parse_tunables(
        "// EVOLVE-BLOCK-START\nconstexpr int X = 1; // tunable: range [1, 2]\nconstexpr int X = "
        "1; // tunable: range [1, 2]\n// EVOLVE-BLOCK-END\n");
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.error().message().find("line 3") != std::string::npos);
    auto not_int = parse_tunables(
        "// EVOLVE-BLOCK-START\nconstexpr float X = 1; // tunable: range [1, 2]\n// "
        "EVOLVE-BLOCK-END\n");
    CHECK_FALSE(not_int.ok());
  }

}  // TEST_SUITE
