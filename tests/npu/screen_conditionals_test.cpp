// What a package's conditional directives may test (npu/sim/device/screen_conditionals.hpp), on
// small sources and stand-in predefine tables: the names the two preprocessors answer differently
// are refused however they are spelled (through a macro, on a continued line, behind a digraph or
// a comment), the names honest packages test pass, and text that is no directive is never read
// as one. The screened device's verdicts are in tests/adversarial/checker_red_team4_test.cpp.
#include "npu/sim/device/screen_conditionals.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

using aopt::npu::check_conditionals;
using aopt::npu::compare_predefines;
using aopt::npu::parse_macro_dump;
using aopt::npu::predefined_macros;

namespace {

// clang's and g++'s tables as they differ in kind: a name only clang predefines, one both
// predefine with other values, names both predefine alike, the screen's own -D and one only g++
// predefines.
predefined_macros stand_in_predefines() {
  const aopt::npu::macro_table clang = {{"__clang__", "1"},
                                        {"__GNUC__", "4"},
                                        {"__cplusplus", "202002L"},
                                        {"__OPTIMIZE__", "1"},
                                        {"_Float16", "__fp16"}};
  const aopt::npu::macro_table gcc = {{"__GNUC__", "12"},
                                      {"__cplusplus", "202002L"},
                                      {"__OPTIMIZE__", "1"},
                                      {"__GCC_IEC_559", "2"}};
  return compare_predefines(clang, gcc);
}

// The construct refused in `text` (a kernel file), "" when it passes; `own_headers` stands in
// for a compiler's own include directory.
std::string refused(const std::string& text, const std::string& own_headers = "") {
  const std::set<std::string> shim = {"__CCE_KT_TEST__", "__CCE_AICORE__", "ASCEND_IS_AIV",
                                      "KERNEL_TASK_TYPE_DEFAULT"};
  predefined_macros predefined = stand_in_predefines();
  if (!own_headers.empty()) predefined.private_include_dirs.push_back(own_headers);
  const auto found = check_conditionals({{"op_kernel/k.cpp", &text}}, predefined, shim);
  return found ? found->construct : "";
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("g++'s macro dump is read, and the two tables are compared ignoring blanks") {
    const auto table =
        parse_macro_dump("#define __GNUC__ 12\n#define __INT8_C(c) c\n#define __STDC__ 1\n");
    CHECK(table.at("__GNUC__") == " 12");
    CHECK(table.at("__INT8_C") == "(c) c");
    const predefined_macros p = compare_predefines({{"__INT8_C", "( c ) c "}, {"__STDC__", "1"}},
                                                   {{"__INT8_C", "(c) c"}, {"__STDC__", "2"}});
    CHECK(p.alike.count("__INT8_C") == 1);
    CHECK(p.alike.count("__STDC__") == 0);
    CHECK(p.any.count("__STDC__") == 1);
  }

  TEST_CASE("a name the two preprocessors answer differently is refused however it is spelled") {
    CHECK(refused("#if !defined(__clang__)\n#endif\n") == "#if __clang__");
    CHECK(refused("#if __GNUC__ > 4\n#endif\n") == "#if __GNUC__");
    // Through a macro of the package, an object-like one or a function-like one.
    CHECK(refused("#define KERNEL_GCC __GNUC__\n#if KERNEL_GCC > 4\n#endif\n") == "#if __GNUC__");
    CHECK(refused("#define PICK(x) (x + __clang__)\n#if PICK(1)\n#endif\n") == "#if __clang__");
    // The compiler's own queries, the screen's own -D, the dynamic builtin macros.
    CHECK(refused("#if __has_builtin(__builtin_has_attribute)\n#endif\n") == "#if __has_builtin(");
    CHECK(refused("#ifdef _Float16\n#endif\n") == "#ifdef _Float16");
    CHECK(refused("#if __COUNTER__ == 0\n#endif\n") == "#if __COUNTER__");
    // A guard named like a macro only g++ predefines hides its #else from clang.
    CHECK(refused("#ifndef __GCC_IEC_559\n#define __GCC_IEC_559\n#else\n#endif\n") ==
          "#ifndef __GCC_IEC_559");
  }

  TEST_CASE("a condition is read as the preprocessor reads it: spliced, without comments") {
    CHECK(refused("#if 1 && \\\n  !defined(__clang__)\n#endif\n") == "#if __clang__");
    CHECK(refused("#if 1 /* a comment\n  over lines */ && __clang__\n#endif\n") == "#if __clang__");
    CHECK(refused("%:if __GNUC__ > 4\n%:endif\n") == "#if __GNUC__");
    const std::string at_line_three = "int a;\n\n#elif __clang__\n";
    const std::string text = "#if 0\n" + at_line_three;
    const auto found = check_conditionals({{"op_kernel/k.cpp", &text}}, stand_in_predefines(), {});
    REQUIRE(found.has_value());
    CHECK(found->line == 4);
    CHECK(found->file == "op_kernel/k.cpp");
  }

  TEST_CASE("what honest packages test passes, and text that is no directive is not read") {
    // Include guards (reserved names included), the shim's macros, macros both predefine alike,
    // names nobody defines, numbers with letters, variadic and recursive macros of the package.
    CHECK(refused("#ifndef __ADD_TILED_KERNEL_H__\n#define __ADD_TILED_KERNEL_H__\n#endif\n") ==
          "");
    CHECK(refused("#ifndef __CCE_KT_TEST__\n#endif\n#if __CCE_AICORE__ == 220\n#endif\n") == "");
    CHECK(refused("#if __cplusplus >= 201703L && defined(__OPTIMIZE__)\n#endif\n") == "");
    CHECK(refused("#if CCE_AICORE == 220 || defined(ASCEND_IS_AIV)\n#endif\n") == "");
    CHECK(refused("#if 0x1FULL + 1e+5 > 0\n#endif\n") == "");
    CHECK(refused("#define ALL(...) __VA_ARGS__\n#if ALL(1, 2)\n#endif\n") == "");
    CHECK(refused("#define A B\n#define B A\n#if A\n#endif\n") == "");
    // Comments, strings and raw strings holding a directive's text.
    CHECK(refused("// #if __clang__\nconst char* s = \"#if __clang__\";\n") == "");
    CHECK(refused("const char* r = R\"x(\n#if __clang__\n)x\";\n") == "");
  }

  TEST_CASE("CANN's pass macros pass the screen while neither compiler defines them") {
    // DrivingSDK's furthest_point_sampling guards its copies so.
    CHECK(refused("#ifndef __GET_CODE_CHANNEL__\n#endif\n#if defined(__GET_CODE_CHANNEL__)\n"
                  "#endif\n") == "");
    // A compiler that predefined one would answer otherwise: refused then.
    const std::string text = "#ifndef __GET_CODE_CHANNEL__\n#endif\n";
    predefined_macros predefined = stand_in_predefines();
    predefined.any.insert("__GET_CODE_CHANNEL__");
    const auto found = check_conditionals({{"op_kernel/k.cpp", &text}}, predefined, {});
    REQUIRE(found.has_value());
    CHECK(found->construct == "#ifndef __GET_CODE_CHANNEL__");
    // g++ leaves each of them undefined, builtin macros included (a -dM dump omits those).
    for (const std::string& name : aopt::npu::cann_pass_macros()) {
      aopt::subprocess_options o;
      o.argv = {"/bin/sh", "-c",
                "printf '#ifdef " + name + "\\nDEFINED\\n#endif\\n' | g++ -E -P -x c++ -"};
      auto r = aopt::run_subprocess(o);
      REQUIRE(r.ok());
      REQUIRE(r->succeeded());
      CHECK_MESSAGE(r->stdout_text.find("DEFINED") == std::string::npos, name);
    }
  }

  TEST_CASE("__has_include may ask only for a header neither compiler holds on its own") {
    aopt::testing::temp_dir clang_own;
    std::ofstream(clang_own.path() / "opencl-c.h") << "\n";
    const std::string dir = clang_own.path().string();
    // CANN's logging headers pick their log API by what the package carries.
    CHECK(
        refused("#if __has_include(\"toolchain/slog.h\")\n#elif __has_include(<base/dlog_pub.h>)\n"
                "#endif\n",
                dir) == "");
    CHECK(refused("#if defined(__has_include)\n#endif\n", dir) == "");
    // A header only clang's resource directory holds: clang says yes, g++ no.
    CHECK(refused("#if __has_include(<opencl-c.h>)\n#endif\n", dir) == "#if __has_include(");
    // A name the screen cannot read plainly (a macro, a climb out of the search path).
    CHECK(refused("#define H <opencl-c.h>\n#if __has_include(H)\n#endif\n", dir) ==
          "#if __has_include(");
    CHECK(refused("#if __has_include(\"../include/opencl-c.h\")\n#endif\n", dir) ==
          "#if __has_include(");
  }
}
