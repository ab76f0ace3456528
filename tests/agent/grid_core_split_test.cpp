// The tile-grid core split motif (agent/motifs/core_split_edits.hpp), both ways: as text on
// kernels written in two styles, and on the simulator with the cube expert it is rewound from,
// where handing the cores whole columns of the tile grid must be correct and slower, and
// flattening the grid again must give the expert back, or (a column split written otherwise) be
// correct and as fast as the expert.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "kernel_rule_harness.hpp"

using namespace aopt;
using namespace aopt::agent;
using aopt::testing::apply_rule;

namespace {

const char* const kTileLoop = R"(class K {
    __aicore__ inline void Process()
    {
        uint32_t tilesN = n / baseN;
        uint32_t tiles = (m / baseM) * tilesN;
        for (uint32_t t = GetBlockIdx(); t < tiles; t += GetBlockNum()) {
            uint32_t row = (t / tilesN) * baseM;
            uint32_t col = (t % tilesN) * baseN;
            Tile(row, col);
        }
    }
};
)";

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("grid_core_split: the rewind hands out columns, the optimization flattens them back") {
    const std::string lines = apply_rule("grid_to_line_split", kTileLoop, true);
    CHECK(lines.find("for (uint32_t tColumn = GetBlockIdx(); tColumn < tilesN; tColumn += "
                     "GetBlockNum()) {") != std::string::npos);
    CHECK(lines.find("for (uint32_t tLine = 0; tLine < (tiles) / tilesN; tLine++) {") !=
          std::string::npos);
    CHECK(lines.find("uint32_t t = tLine * tilesN + tColumn;") != std::string::npos);
    // The body is kept as it was, one level deeper inside both loops.
    CHECK(lines.find("\n                Tile(row, col);\n            }\n        }") !=
          std::string::npos);
    // The rewound kernel no longer walks the flat grid, so the rewind does not apply again.
    CHECK_FALSE(find_rewind_rule("grid_to_line_split")->applies(lines));

    // On the rewind's own form the optimization gives the flat loop back, text and all.
    CHECK(apply_rule("line_to_grid_split", lines, false) == kTileLoop);
    // The same column split written another way is flattened by the general form.
    const std::string by_hand =
        replace_once(lines, "tLine * tilesN + tColumn", "tColumn + tLine * tilesN");
    const std::string grid = apply_rule("line_to_grid_split", by_hand, false);
    CHECK(grid.find("for (uint32_t tColumntLine = GetBlockIdx(); tColumntLine < (tilesN) * "
                    "((tiles) / tilesN); tColumntLine += GetBlockNum()) {") != std::string::npos);
    CHECK(grid.find("uint32_t tColumn = tColumntLine / ((tiles) / tilesN);") != std::string::npos);
    CHECK(grid.find("uint32_t tLine = tColumntLine % ((tiles) / tilesN);") != std::string::npos);
    CHECK(grid.find("for (uint32_t tLine = 0;") == std::string::npos);
    // One loop is left: its braces balance and the flat kernel is not nested again.
    CHECK(std::count(grid.begin(), grid.end(), '{') == std::count(grid.begin(), grid.end(), '}'));
    CHECK_FALSE(find_optimization_rule("line_to_grid_split")->applies(grid));
  }

  TEST_CASE("grid_core_split: a vector kernel's rows-per-core loop is flattened too") {
    const char* rows = R"(class K {
    __aicore__ inline void Process()
    {
        for (int32_t row = AscendC::GetBlockIdx(); row < rowCount; row += AscendC::GetBlockNum()) {
            for (int32_t i = 0; i < tilesPerRow; ++i) {
                CopyIn(row, i);
                Compute();
                CopyOut(row, i);
            }
        }
    }
};
)";
    const std::string flat = apply_rule("line_to_grid_split", rows, false);
    CHECK(flat.find("for (int32_t rowi = GetBlockIdx(); rowi < (rowCount) * (tilesPerRow); rowi "
                    "+= GetBlockNum()) {") != std::string::npos);
    CHECK(flat.find("int32_t row = rowi / (tilesPerRow);") != std::string::npos);
    CHECK(flat.find("int32_t i = rowi % (tilesPerRow);") != std::string::npos);
    // The inner body moves up a level and closes the one loop left.
    CHECK(flat.find("\n            CopyOut(row, i);\n        }\n    }") != std::string::npos);
  }

  TEST_CASE("grid_core_split: neither way applies where the structure is not there") {
    const kernel_rule* flatten = find_optimization_rule("line_to_grid_split");
    const kernel_rule* rewind = find_rewind_rule("grid_to_line_split");
    // The inner loop's bound depends on the core's line: the grid is not rectangular.
    CHECK_FALSE(flatten->applies(R"(void P() {
    for (uint32_t r = GetBlockIdx(); r < rows; r += GetBlockNum()) {
        for (uint32_t c = 0; c < r + 1; c++) { Tile(r, c); }
    }
})"));
    // More than the inner loop in the body: work per line the flattening would repeat.
    CHECK_FALSE(flatten->applies(R"(void P() {
    for (uint32_t r = GetBlockIdx(); r < rows; r += GetBlockNum()) {
        LoadRow(r);
        for (uint32_t c = 0; c < cols; c++) { Tile(r, c); }
    }
})"));
    // A core-strided loop that is not over a grid (no t / D and t % D) has no columns to hand out.
    CHECK_FALSE(rewind->applies(R"(void P() {
    for (uint32_t t = GetBlockIdx(); t < tiles; t += GetBlockNum()) { Tile(t * 64); }
})"));
    // A loop that is not core-strided is left alone both ways.
    CHECK_FALSE(rewind->applies(R"(void P() {
    for (uint32_t t = 0; t < tiles; t++) { Tile(t / d, t % d); }
})"));
  }

  TEST_CASE(
      "grid_core_split on the simulator: columns are slower and the flat grid is the expert's "
      "speed") {
    aopt::testing::expert_bench bench;
    const auto op = aopt::testing::expert_bench::expert("matmul_fused_relu_custom");
    const auto run = [&](const std::string& kernel) { return bench.latency_us(op, kernel); };
    const double expert = run(op->kernel_source);
    const std::string lines = apply_rule("grid_to_line_split", op->kernel_source, true);
    const double columns = run(lines);
    // 16 x 4 tiles of c on 20 cores: 4 a core either way when spread, 16 a core on the 4 cores
    // that get a column.
    CHECK(columns > 2 * expert);
    // Undone, the rewind gives the expert's text back; the general flattening of a column split
    // written another way spreads the tiles as evenly as the expert. It orders them otherwise,
    // and since cube operand loads hit L2 only on bytes an earlier access touched (red team 7,
    // l2_reuse.hpp), that order moves its latency: 37.94 against the expert's 32.62 us.
    CHECK(apply_rule("line_to_grid_split", lines, false) == op->kernel_source);
    const double flat = run(apply_rule(
        "line_to_grid_split",
        replace_once(lines, "tLine * tilesN + tColumn", "tColumn + tLine * tilesN"), false));
    CHECK(flat < columns / 2);
    CHECK(flat == doctest::Approx(expert).epsilon(0.2));
  }
}
