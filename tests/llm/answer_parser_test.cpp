#include <string>

#include <doctest/doctest.h>

#include "llm/answer_parser.hpp"

namespace llm = aopt::llm;

namespace {

const std::string tiling =
    "#include \"add_tiling.h\"\n"
    "namespace optiling {\n"
    "// EVOLVE-BLOCK-START\n"
    "constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]\n"
    "constexpr uint32_t TILE_LENGTH = 8192;  // tunable: pow2 [256, 32768]\n"
    "// EVOLVE-BLOCK-END\n"
    "static ge::graphStatus TilingFunc(gert::TilingContext* context)\n"
    "{\n"
    "    context->SetBlockDim(BLOCK_DIM);\n"
    "    return ge::GRAPH_SUCCESS;\n"
    "}\n"
    "}  // namespace optiling\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("extract_fenced_code takes the longest C++ block, else an untagged one") {
    const std::string answer =
        "Here is the idea:\n```json\n{\"a\": 1}\n```\n```cpp\nshort();\n```\n"
        "And the file:\n```c++\nint main() {\n  return 0;\n}\n```\nDone.\n";
    auto code = llm::extract_fenced_code(answer);
    REQUIRE(code.ok());
    CHECK(*code == "int main() {\n  return 0;\n}\n");

    auto untagged = llm::extract_fenced_code("```\nvoid f();\n```\n");
    REQUIRE(untagged.ok());
    CHECK(*untagged == "void f();\n");

    auto none = llm::extract_fenced_code("I would double-buffer the queue.");
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().kind() == llm::answer_error::no_code);
    CHECK(none.error().message().rfind("no_code: ", 0) == 0);
  }

  TEST_CASE("edit blocks apply in order, exactly or with whitespace normalised") {
    const std::string answer =
        "Raise the tile.\n```cpp\n<<<<<<< SEARCH\n"
        "constexpr uint32_t TILE_LENGTH = 8192;  // tunable: pow2 [256, 32768]\n=======\n"
        "constexpr uint32_t TILE_LENGTH = 16384;  // tunable: pow2 [256, 32768]\n>>>>>>> REPLACE\n"
        "```\nand\n<<<<<<< SEARCH\n  context->SetBlockDim(BLOCK_DIM);\n=======\n"
        "    context->SetBlockDim(BLOCK_DIM / 2);\n>>>>>>> REPLACE\n";
    auto result = llm::extract_source(answer, tiling);
    REQUIRE_MESSAGE(result.ok(), result.error().to_string());
    CHECK(result->from_edits);
    CHECK(result->edits == 2);
    CHECK(result->whitespace_matches == 1);
    std::string expected = replaced(tiling, "TILE_LENGTH = 8192;", "TILE_LENGTH = 16384;");
    expected = replaced(expected, "SetBlockDim(BLOCK_DIM);", "SetBlockDim(BLOCK_DIM / 2);");
    CHECK(result->source == expected);
  }

  TEST_CASE("a SEARCH block that matches nowhere or in several places is a classified failure") {
    auto missing = llm::extract_source(
        "<<<<<<< SEARCH\nconstexpr uint32_t TILE = 1;\n=======\nx\n>>>>>>> REPLACE\n", tiling);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().kind() == llm::answer_error::search_not_found);
    CHECK(missing.error().message().find("edit block 1") != std::string::npos);
    CHECK(missing.error().message().find("constexpr uint32_t TILE = 1;") != std::string::npos);

    auto twice = llm::extract_source("<<<<<<< SEARCH\n}\n=======\n};\n>>>>>>> REPLACE\n",
                                     tiling + "void g()\n{\n}\n");
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.error().kind() == llm::answer_error::search_ambiguous);
  }

  TEST_CASE("malformed edit blocks are reported with their line") {
    auto unterminated = llm::parse_edit_blocks("<<<<<<< SEARCH\na\n=======\nb\n");
    CHECK(unterminated.error().kind() == llm::answer_error::malformed_edit_block);
    auto empty_search = llm::parse_edit_blocks("<<<<<<< SEARCH\n=======\nb\n>>>>>>> REPLACE\n");
    CHECK(empty_search.error().kind() == llm::answer_error::malformed_edit_block);
    auto stray = llm::parse_edit_blocks("text\n>>>>>>> REPLACE\n");
    REQUIRE_FALSE(stray.ok());
    CHECK(stray.error().message().find("line 2") != std::string::npos);
    auto none = llm::parse_edit_blocks("no edits here\n");
    REQUIRE(none.ok());
    CHECK(none->empty());
  }

  TEST_CASE("an edit matching the last line of a file without a newline keeps it that way") {
    auto result = llm::extract_source(
        "<<<<<<< SEARCH\n  return   0;\n=======\n  return 1;\n>>>>>>> REPLACE\n",
        "int f() {\nreturn 0;");
    REQUIRE(result.ok());
    CHECK(result->source == "int f() {\n  return 1;");
  }

  TEST_CASE("check_evolve_block_only accepts changes inside the block and rejects any outside") {
    const std::string inside = replaced(tiling, "BLOCK_DIM = 40;", "BLOCK_DIM = 20;");
    auto ok = llm::check_evolve_block_only(tiling, inside);
    REQUIRE(ok.ok());
    CHECK(*ok == 1);
    CHECK(*llm::check_evolve_block_only(tiling, tiling) == 0);

    const std::string trailing_blanks = replaced(tiling, "{\n", "{   \n");
    CHECK(llm::check_evolve_block_only(tiling, trailing_blanks).ok());

    const std::string outside = replaced(inside, "return ge::GRAPH_SUCCESS;", "return 1;");
    auto violation = llm::check_evolve_block_only(tiling, outside);
    REQUIRE_FALSE(violation.ok());
    CHECK(violation.error().kind() == llm::answer_error::outside_evolve_block);
    CHECK(violation.error().message().find("line 10") != std::string::npos);
    CHECK(violation.error().message().find("return 1;") != std::string::npos);

    const std::string unmarked = replaced(tiling, "// EVOLVE-BLOCK-END\n", "");
    CHECK(llm::check_evolve_block_only(tiling, unmarked).error().kind() ==
          llm::answer_error::outside_evolve_block);
    CHECK(llm::check_evolve_block_only(unmarked, tiling).error().kind() ==
          llm::answer_error::evolve_block_missing);
    CHECK(llm::check_evolve_block_only("int x;\n", "int y;\n").error().kind() ==
          llm::answer_error::evolve_block_missing);
  }

  TEST_CASE("parse_json_answer finds the object bare, fenced or embedded in prose") {
    auto bare = llm::parse_json_answer(R"( {"bottleneck": "MTE2 bound", "tags": ["mte2_bound"]} )");
    REQUIRE(bare.ok());
    CHECK((*bare)["tags"][0] == "mte2_bound");

    auto fenced = llm::parse_json_answer(
        "The kernel is copy bound.\n```json\n{\"bottleneck\": \"single buffer\"}\n```\n");
    REQUIRE(fenced.ok());
    CHECK((*fenced)["bottleneck"] == "single buffer");

    auto embedded = llm::parse_json_answer("Answer: {\"title\": \"x\"} hope it helps");
    REQUIRE(embedded.ok());
    CHECK((*embedded)["title"] == "x");

    auto none = llm::parse_json_answer("I think it is MTE2 bound.");
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().kind() == llm::answer_error::malformed_json);
    CHECK(llm::parse_json_answer("[1, 2]").error().kind() == llm::answer_error::malformed_json);
  }

}  // TEST_SUITE
