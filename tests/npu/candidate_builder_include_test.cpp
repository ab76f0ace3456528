// The compile step's screen of #include paths (the sandbox is the enforcement; this gives the
// candidate a clear compile_error naming the line).
#include <doctest/doctest.h>

#include "npu/sim/device/candidate_builder.hpp"

using aopt::npu::find_escaping_include;

TEST_SUITE("npu") {
  TEST_CASE("absolute and parent-relative includes are found with their line") {
    CHECK(find_escaping_include("#include \"kernel_operator.h\"\n#include \"/etc/shadow\"\n") ==
          "line 2: #include \"/etc/shadow\"");
    CHECK(find_escaping_include("  #  include </etc/passwd>") == "line 1: #include </etc/passwd>");
    CHECK(find_escaping_include("#/**/include_next \"../../secret.h\"") ==
          "line 1: #include_next \"../../secret.h\"");
    CHECK(find_escaping_include("%:include \"/dev/stdin\"") == "line 1: #include \"/dev/stdin\"");
    CHECK(find_escaping_include("#include \"op_kernel/../../x.h\"") ==
          "line 1: #include \"op_kernel/../../x.h\"");
    CHECK(find_escaping_include("#embed \"/etc/hostname\"") == "line 1: #embed \"/etc/hostname\"");
  }

  TEST_CASE("ordinary includes and look-alikes pass the screen") {
    CHECK(find_escaping_include("#include \"kernel_operator.h\"\n#include <cstdint>\n").empty());
    CHECK(find_escaping_include("#include \"add_custom_tiling.h\"\n").empty());
    CHECK(
        find_escaping_include("// #include \"/etc/shadow\" is what an attacker writes\n").empty());
    CHECK(find_escaping_include("const char* p = \"/etc/shadow\";\n").empty());
    CHECK(find_escaping_include("#define PATH \"/etc/shadow\"\n").empty());
    CHECK(find_escaping_include("#include \"a..b.h\"\n").empty());
  }
}

TEST_SUITE("npu") {
  TEST_CASE("compiler diagnostics are trimmed to the first error, with short lines") {
    const std::string output = "/scratch/a.cpp: In function 'f':\n" +
                               std::string("/scratch/a.cpp:3:1: error: ") + std::string(5000, 'x') +
                               "\nnote: more\n";
    auto lines = aopt::npu::trim_diagnostics(output, {"/scratch/"});
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "a.cpp: In function 'f':");
    CHECK(lines[1].rfind("a.cpp:3:1: error: xxx", 0) == 0);
    CHECK(lines[1].size() == 404);
    CHECK(lines[1].substr(400) == " ...");
  }
}
