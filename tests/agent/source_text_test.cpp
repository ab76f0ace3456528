#include "agent/kernel_text/source_text.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace aopt::agent;

TEST_SUITE("agent") {
  TEST_CASE("split_lines and join_lines round-trip with and without a final newline") {
    CHECK(split_lines("a\nb\n") == std::vector<std::string>{"a", "b"});
    CHECK(split_lines("a\n\nb") == std::vector<std::string>{"a", "", "b"});
    CHECK(join_lines(split_lines("a\nb\n"), true) == "a\nb\n");
    CHECK(join_lines(split_lines("a\nb"), false) == "a\nb");
  }

  TEST_CASE("the mask blanks comments and literals but keeps offsets and newlines") {
    std::string src = "int a = 1; // x = 2;\nconst char* s = \"y(\";\n/* z { */ int b = 1'000;";
    std::string m = mask_comments_and_strings(src);
    REQUIRE(m.size() == src.size());
    CHECK(m.find("x = 2") == std::string::npos);
    CHECK(m.find("y(") == std::string::npos);
    CHECK(m.find("z {") == std::string::npos);
    CHECK(m.find("int b = 1'000;") !=
          std::string::npos);  // a digit separator is not a char literal
    CHECK(std::count(m.begin(), m.end(), '\n') == 2);
  }

  TEST_CASE("find_function_body finds a definition, not a call") {
    std::string src =
        "void f() { Compute(1); }\n__aicore__ inline void Compute(uint32_t n) const { Add(a, b, c, "
        "n); }";
    std::string m = mask_comments_and_strings(src);
    auto body = find_function_body(m, "Compute");
    REQUIRE(body.has_value());
    CHECK(src.substr(body->begin, body->end - body->begin) == "{ Add(a, b, c, n); }");
    CHECK_FALSE(find_function_body(m, "Missing").has_value());
  }

  TEST_CASE("split_statements separates simple and compound statements") {
    std::string src =
        "{ int a = f(1, 2); if (a) { g(); } else h(); for (;;) { k(); } DataCopyExtParams p{1, 2}; "
        "}";
    std::string m = mask_comments_and_strings(src);
    auto stmts = split_statements(m, {0, m.size()});
    REQUIRE(stmts.size() == 4);
    CHECK(src.substr(stmts[1].begin, stmts[1].end - stmts[1].begin) == "if (a) { g(); } else h();");
    CHECK(src.substr(stmts[3].begin, stmts[3].end - stmts[3].begin) ==
          "DataCopyExtParams p{1, 2};");
  }

  TEST_CASE("find_calls reports arguments split at top-level commas") {
    std::string src =
        "DataCopy(xLocal, xGm[i * n], static_cast<uint32_t>(a < b ? a : "
        "b));\nPipeBarrier<PIPE_V>();";
    std::string m = mask_comments_and_strings(src);
    auto calls = find_calls(src, m, "DataCopy", {0, m.size()});
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].arguments ==
          std::vector<std::string>{"xLocal", "xGm[i * n]", "static_cast<uint32_t>(a < b ? a : b)"});
    CHECK(src.substr(calls[0].argument_ranges[1].begin, 10) == "xGm[i * n]");
    CHECK(find_calls(src, m, "PipeBarrier", {0, m.size()}).size() == 1);
  }

  TEST_CASE("identifier_words splits camelCase, underscores and acronyms") {
    CHECK(identifier_words("tileLength") == std::vector<std::string>{"tile", "length"});
    CHECK(identifier_words("BUFFER_NUM") == std::vector<std::string>{"buffer", "num"});
    CHECK(identifier_words("UBSize") == std::vector<std::string>{"ub", "size"});
    CHECK(identifier_words("mte2Ratio") == std::vector<std::string>{"mte2", "ratio"});
  }

  TEST_CASE("find_loops and inside_loop see braced loop bodies") {
    std::string src = "void P() { for (int i = 0; i < n; i++) { while (x) { y(); } } z(); }";
    std::string m = mask_comments_and_strings(src);
    auto loops = find_loops(m, {0, m.size()});
    REQUIRE(loops.size() == 2);
    CHECK(inside_loop(m, src.find("y()")));
    CHECK_FALSE(inside_loop(m, src.find("z()")));
  }

  TEST_CASE("fresh_identifier avoids names already in the text") {
    CHECK(fresh_identifier("int BLOCK_DIM = 1;", "BLOCK_DIM") == "BLOCK_DIM2");
    CHECK(fresh_identifier("int x;", "BLOCK_DIM") == "BLOCK_DIM");
  }

}  // TEST_SUITE
