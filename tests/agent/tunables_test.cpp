#include "agent/kernel_text/tunables.hpp"

#include <doctest/doctest.h>

#include <map>

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

  TEST_CASE("annotations as teams write them: every declaration and domain style") {
    const std::string source = R"(namespace optiling {
const uint32_t BLOCK_DIM = 8; // tunable: 1..40
constexpr int TILE_A = 2048;  // tunable: [256, 8192]
static const uint32_t TILE_B = 4;  // tunable: range [1, 40]
#define TILE_C 128  // tunable: pow2 1..256
const unsigned int TILE_D = 6;  // tunable: 1-40
static constexpr uint64_t TILE_E = 1024u;  // tunable: multiple of 8, 250..16384
constexpr int32_t BUF_A = 1;  // tunable: {1, 2}
const size_t BUF_B = 2;  // tunable: choice {1, 2, 4} buffers per queue
// tunable: 8..64
const int64_t ROWS = 16;
inline constexpr short SMALL = (3);  /* tunable: range [1, 8] step 1 */
#define DEPTH_LIKE (2L) // @Tunable: one of {2, 4}
}
)";
    result<std::vector<tunable>> t = parse_tunables(source);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    REQUIRE(t->size() == 11);
    std::map<std::string, tunable> by;
    for (const tunable& u : *t) by[u.name] = u;
    CHECK(by["BLOCK_DIM"].domain_text() == "range [1, 40]");
    CHECK(by["BLOCK_DIM"].line == 2);
    CHECK(by["TILE_A"].domain_text() == "range [256, 8192]");
    CHECK(by["TILE_B"].value == 4);
    CHECK(by["TILE_C"].kind == tunable_kind::pow2);
    CHECK(by["TILE_C"].domain().size() == 9);
    CHECK(by["TILE_D"].domain_text() == "range [1, 40]");
    CHECK(by["TILE_E"].domain_text() == "range [256, 16384] step 8");
    CHECK(by["TILE_E"].admits(264));
    CHECK_FALSE(by["TILE_E"].admits(250));
    CHECK(by["BUF_A"].choices == std::vector<int64_t>{1, 2});
    CHECK(by["BUF_B"].choices == std::vector<int64_t>{1, 2, 4});
    CHECK(by["BUF_B"].note == "buffers per queue");
    CHECK(by["ROWS"].line == 11);
    CHECK(by["ROWS"].domain_text() == "range [8, 64]");
    CHECK(by["SMALL"].value == 3);
    CHECK(by["DEPTH_LIKE"].choices == std::vector<int64_t>{2, 4});

    result<std::string> out =
        apply_values(source, {{"TILE_C", 64}, {"BLOCK_DIM", 33}, {"SMALL", 5}, {"TILE_E", 512}});
    REQUIRE(out.ok());
    CHECK(out->find("#define TILE_C 64  // tunable: pow2 1..256") != std::string::npos);
    CHECK(out->find("const uint32_t BLOCK_DIM = 33; // tunable: 1..40") != std::string::npos);
    CHECK(out->find("SMALL = (5);") != std::string::npos);
    CHECK(out->find("TILE_E = 512u;") != std::string::npos);
  }

  TEST_CASE("an annotation that cannot be read is an error naming the line and the forms") {
    auto domain = parse_tunables("int a;\nconst int TILE = 3;  // tunable: between 1 and 5\n");
    REQUIRE_FALSE(domain.ok());
    CHECK(domain.error().code() == status_code::invalid_argument);
    CHECK(domain.error().message().find("line 2: TILE: cannot read domain 'between 1 and 5'") !=
          std::string::npos);
    CHECK(domain.error().message().find("expected a domain like 1..40") != std::string::npos);

    auto not_decl = parse_tunables("\n\nuint32_t tile = Compute(); // tunable: 1..8\n");
    REQUIRE_FALSE(not_decl.ok());
    CHECK(not_decl.error().message().find("line 3: expected 'const|constexpr") !=
          std::string::npos);

    auto dangling = parse_tunables("// tunable: 1..8\nvoid f();\n");
    REQUIRE_FALSE(dangling.ok());
    CHECK(dangling.error().message().find("line 1: the annotation is not followed by a "
                                          "declaration") != std::string::npos);

    auto trailing = parse_tunables("const int T = 3;  // tunable: 1..8..9\n");
    REQUIRE_FALSE(trailing.ok());
    CHECK(trailing.error().message().find("unexpected '..9'") != std::string::npos);

    auto negative = parse_tunables("const uint32_t T = 0;  // tunable: -4..4\n");
    REQUIRE_FALSE(negative.ok());
    CHECK(negative.error().message().find("negative values for unsigned") != std::string::npos);

    auto empty_multiple = parse_tunables("const int T = 3;  // tunable: multiple of 64, 1..40\n");
    REQUIRE_FALSE(empty_multiple.ok());
    CHECK(empty_multiple.error().message().find("no multiple of 64") != std::string::npos);
  }

  TEST_CASE("prose mentioning tunables outside a block is not an annotation") {
    auto t =
        parse_tunables("// The tunable: see docs.\nconst int X = 1; // not a tunable: really\n");
    CHECK(t.error().code() == status_code::not_found);
  }

}  // TEST_SUITE
