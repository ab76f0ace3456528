// The rewrite that lets tilings differing only in their tunable values share one build: which
// declarations it takes, the values it reads, and the text it leaves.
#include "npu/sim/device/tiling_constant_lift.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

namespace {

using aopt::npu::lift_tiling_constants;

std::string in_block(const std::string& declarations) {
  return "#include <cstdint>\nnamespace optiling {\n// EVOLVE-BLOCK-START\n" + declarations +
         "// EVOLVE-BLOCK-END\nuint32_t Use() { return 0; }\n}\n";
}

size_t lines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("the tunable block's integer constants become slots, in order, with their values") {
    const std::string source = in_block(
        "constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]\n"
        "constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 32768]\n"
        "static constexpr int64_t BUFFER_NUM = 1;\n");
    const auto lifted = lift_tiling_constants(source);
    REQUIRE(lifted.has_value());
    CHECK(lifted->names == std::vector<std::string>{"BLOCK_DIM", "TILE_LENGTH", "BUFFER_NUM"});
    CHECK(lifted->values == std::vector<uint64_t>{8, 2048, 1});
    CHECK(lifted->source.find("static const uint32_t& BLOCK_DIM = "
                              "aopt_lifted::slot<uint32_t>[0];       // tunable: range [1, 40]") !=
          std::string::npos);
    CHECK(lifted->source.find("static const uint32_t& TILE_LENGTH = "
                              "aopt_lifted::slot<uint32_t>[1];") != std::string::npos);
    CHECK(
        lifted->source.find("static const int64_t& BUFFER_NUM = aopt_lifted::slot<int64_t>[2];") !=
        std::string::npos);
    CHECK(lifted->source.find("constexpr") == std::string::npos);
    CHECK(lines(lifted->source) == lines(source));
    // Another value, the same lifted text: the build is shared.
    std::string other = source;
    other.replace(other.find("= 2048"), 6, "= 4096");
    const auto lifted_other = lift_tiling_constants(other);
    REQUIRE(lifted_other.has_value());
    CHECK(lifted_other->source == lifted->source);
    CHECK(lifted_other->values == std::vector<uint64_t>{8, 4096, 1});
  }

  TEST_CASE("every integer literal spelling is read at its value") {
    const auto lifted =
        lift_tiling_constants(in_block("constexpr uint32_t A = 0x40;\n"
                                       "constexpr uint32_t B = 0b101;\n"
                                       "constexpr uint32_t C = 017;\n"
                                       "constexpr uint64_t D = 1048576ULL;\n"
                                       "constexpr unsigned long long E = 18446744073709551615u;\n"
                                       "const std::size_t F = 0;\n"
                                       "inline constexpr unsigned int G = 7U;\n"));
    REQUIRE(lifted.has_value());
    CHECK(lifted->names == std::vector<std::string>{"A", "B", "C", "D", "E", "F", "G"});
    CHECK(lifted->values ==
          std::vector<uint64_t>{64, 5, 15, 1048576, 18446744073709551615ull, 0, 7});
    CHECK(lifted->source.find("static const std::size_t& F = aopt_lifted::slot<std::size_t>[5];") !=
          std::string::npos);
    CHECK(lifted->source.find("static const unsigned long long& E = "
                              "aopt_lifted::slot<unsigned long long>[4];") != std::string::npos);
  }

  TEST_CASE("what is not a plain integer constant of the block stays as written") {
    const std::string declarations =
        "constexpr auto A = 8u;\n"                           // its type comes from the literal
        "constexpr float B = 1;\n"                           // not an integer type
        "constexpr int C = -1;\n"                            // a negative number
        "constexpr uint32_t D = 4 * 1024;\n"                 // an expression
        "constexpr uint32_t E{16};\n"                        // a braced initializer
        "constexpr uint32_t F = 1, G = 2;\n"                 // two declarators
        "constexpr char H = 'a';\n"                          // a character
        "constexpr double I = 1.5;\n"                        // a floating literal
        "constexpr bool J = true;\n"                         // a boolean
        "uint32_t K = 3;\n"                                  // not a constant
        "constexpr uint32_t L = 99999999999999999999999;\n"  // past 64 bits
        "constexpr uint32_t M = 1'024;\n";  // digit separators: the block is lexed as C
    const std::string source = in_block(declarations) + "constexpr uint32_t OUTSIDE = 4;\n";
    CHECK_FALSE(lift_tiling_constants(source).has_value());
    CHECK_FALSE(lift_tiling_constants("constexpr uint32_t TILE = 64;\n").has_value());
  }

  TEST_CASE("a block that could define or expand a macro is left as written") {
    CHECK_FALSE(lift_tiling_constants(in_block("#define TILE 64\nconstexpr uint32_t CORES = 8;\n"))
                    .has_value());
    CHECK_FALSE(lift_tiling_constants(in_block("constexpr uint32_t CORES = \\\n8;\n")).has_value());
    // Templates in the block are only tokens: nothing is instantiated in aopt's process.
    const auto lifted = lift_tiling_constants(
        in_block("template <int N> struct Boom { static constexpr long v = Boom<N - 1>::v * 2; };\n"
                 "constexpr long kBoom = Boom<1000000>::v;\n"
                 "constexpr uint32_t CORES = 8;\n"));
    REQUIRE(lifted.has_value());
    CHECK(lifted->names == std::vector<std::string>{"CORES"});
  }

  TEST_CASE("a declaration over several lines keeps the line numbers below it") {
    const std::string source = in_block(
        "constexpr uint32_t\n"
        "    TILE =\n"
        "    256;\n"
        "constexpr uint32_t CORES = 8;\n");
    const auto lifted = lift_tiling_constants(source);
    REQUIRE(lifted.has_value());
    CHECK(lifted->values == std::vector<uint64_t>{256, 8});
    CHECK(lines(lifted->source) == lines(source));
    const size_t use = source.find("uint32_t Use()");
    const size_t lifted_use = lifted->source.find("uint32_t Use()");
    CHECK(lines(source.substr(0, use)) == lines(lifted->source.substr(0, lifted_use)));
  }

  TEST_CASE("several blocks, inside functions too, share one slot numbering") {
    const std::string source =
        "// EVOLVE-BLOCK-START\nconstexpr uint32_t CORES = 40;\n// EVOLVE-BLOCK-END\n"
        "int f() {\n    // EVOLVE-BLOCK-START\n    constexpr int32_t TILE = 512;\n"
        "    // EVOLVE-BLOCK-END\n    return TILE;\n}\n";
    const auto lifted = lift_tiling_constants(source);
    REQUIRE(lifted.has_value());
    CHECK(lifted->names == std::vector<std::string>{"CORES", "TILE"});
    CHECK(lifted->source.find("    static const int32_t& TILE = aopt_lifted::slot<int32_t>[1];") !=
          std::string::npos);
  }
}
