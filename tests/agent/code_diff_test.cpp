#include "agent/kernel_text/code_diff.hpp"

#include <doctest/doctest.h>

using namespace aopt;
using namespace aopt::agent;

namespace {

std::string numbered(int from, int to, const std::string& prefix = "line ") {
  std::string s;
  for (int i = from; i <= to; ++i) s += prefix + std::to_string(i) + "\n";
  return s;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a diff applied to its own source gives the target") {
    std::string before = numbered(1, 30);
    std::string after = before;
    after.replace(after.find("line 5\n"), 7, "line five\nline 5b\n");
    after.replace(after.find("line 20\n"), 8, "");
    after += "appended\n";
    std::string diff = make_unified_diff(before, after);
    CHECK(diff.rfind("--- a/kernel.cpp\n+++ b/kernel.cpp\n@@ -2,7 +2,8 @@\n", 0) == 0);
    result<patch_outcome> out = apply_unified_diff(before, diff);
    REQUIRE(out.ok());
    CHECK(out->applied);
    CHECK(out->text == after);
    CHECK(out->hunks.size() == 3);
    for (const hunk_report& h : out->hunks) CHECK(h.offset == 0);
  }

  TEST_CASE("equal sources give an empty diff, which is malformed to apply") {
    CHECK(make_unified_diff("a\n", "a\n").empty());
    CHECK_FALSE(apply_unified_diff("a\n", "").ok());
    CHECK_FALSE(apply_unified_diff("a\n", "@@ nonsense @@\n").ok());
  }

  TEST_CASE("a hunk is found at an offset, with other whitespace and indentation") {
    std::string before = "    a = 1;\n    b = 2;\n    c = 3;\n    d = 4;\n";
    std::string after = "    a = 1;\n    b = 2;\n    inserted();\n    c = 3;\n    d = 4;\n";
    std::string diff = make_unified_diff(before, after);
    // The target has extra lines in front and is indented by 8 with different spacing.
    std::string target =
        "x();\ny();\nz();\n        a=1;\n        b =  2;\n        c = 3;\n        d = 4;\n";
    result<patch_outcome> out = apply_unified_diff(target, diff);
    REQUIRE(out.ok());
    REQUIRE(out->applied);
    CHECK(out->hunks[0].offset == 3);
    CHECK(out->text ==
          "x();\ny();\nz();\n        a=1;\n        b =  2;\n        inserted();\n        c = 3;\n  "
          "      d = 4;\n");
  }

  TEST_CASE("fuzz drops outer context lines that differ") {
    std::string before = "ctx1\nctx2\nctx3\nold\nctx4\nctx5\nctx6\n";
    std::string after = "ctx1\nctx2\nctx3\nnew\nctx4\nctx5\nctx6\n";
    std::string diff = make_unified_diff(before, after);
    std::string target = "other1\nctx2\nctx3\nold\nctx4\nctx5\nother6\n";
    result<patch_outcome> out = apply_unified_diff(target, diff);
    REQUIRE(out.ok());
    REQUIRE(out->applied);
    CHECK(out->hunks[0].fuzz == 1);
    CHECK(out->text == "other1\nctx2\nctx3\nnew\nctx4\nctx5\nother6\n");
    result<patch_outcome> strict = apply_unified_diff(target, diff, {0});
    REQUIRE(strict.ok());
    CHECK_FALSE(strict->applied);
  }

  TEST_CASE("patching is all or nothing and reports each hunk") {
    std::string before = numbered(1, 20);
    std::string after = before;
    after.replace(after.find("line 2\n"), 7, "line two\n");
    after.replace(after.find("line 18\n"), 8, "line eighteen\n");
    std::string diff = make_unified_diff(before, after);
    std::string target = numbered(1, 12);  // the second hunk's context is missing
    result<patch_outcome> out = apply_unified_diff(target, diff);
    REQUIRE(out.ok());
    CHECK_FALSE(out->applied);
    CHECK(out->text == target);
    REQUIRE(out->hunks.size() == 2);
    CHECK(out->hunks[0].applied);
    CHECK_FALSE(out->hunks[1].applied);
    CHECK_FALSE(out->hunks[1].message.empty());
  }

  TEST_CASE("a removed line that is absent from the target fails the hunk") {
    std::string diff = make_unified_diff("a\nb\nc\n", "a\nc\n");
    result<patch_outcome> out = apply_unified_diff("a\nx\nc\n", diff, {0});
    REQUIRE(out.ok());
    CHECK_FALSE(out->applied);
  }

  TEST_CASE("a change in a repeated block lands on the right copy") {
    std::string block = "f();\ng();\nh();\n";
    std::string before = "top\n" + block + "mid1\nmid2\nmid3\nmid4\nmid5\nmid6\nmid7\n" + block;
    std::string after = before;
    after.replace(after.rfind("g();"), 4, "G();");
    std::string diff = make_unified_diff(before, after);
    result<patch_outcome> out = apply_unified_diff(before, diff);
    REQUIRE(out.ok());
    REQUIRE(out->applied);
    CHECK(out->text == after);  // the second g() changed, not the first
  }

}  // TEST_SUITE
