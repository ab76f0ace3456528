// The copy_in_ahead motif: where the compute stage makes the scalar unit wait for the vector unit,
// the next tile's load is issued before the current tile is computed. Both directions on kernels
// written in the style of public AscendC row kernels (names no rule knows), the cases where the
// reordering would change what the compute sees, and the expert's rewind on the simulator.
#include <doctest/doctest.h>

#include <string>

#include "agent/motifs/motif_library.hpp"
#include "kernel_rule_harness.hpp"

namespace {

// A row-wise normalization in the style of public kernels: the load stage is `LoadTile`, the loop
// runs over `blk`, and the per-row reduction is read back with GetValue.
constexpr const char* kRowKernel = R"(#include "kernel_operator.h"
using namespace AscendC;

class RowScaler {
public:
    __aicore__ inline void Run()
    {
        uint32_t blocks = (rowsTotal + rowsEach - 1) / rowsEach;
        for (uint32_t blk = 0; blk < blocks; ++blk) {
            uint32_t rows = (blk + 1 == blocks) ? rowsTotal - blk * rowsEach : rowsEach;
            uint32_t unused = rows * 2;
            LoadTile(blk, rows);
            ScaleRows(rows);
            StoreTile(blk, rows);
        }
    }

private:
    __aicore__ inline void LoadTile(uint32_t blk, uint32_t rows)
    {
        LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyExtParams params{static_cast<uint16_t>(rows), width * 4, 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(src, srcGm[blk * rowsEach * width], params, pad);
        inQue.EnQue(src);
    }

    __aicore__ inline void ScaleRows(uint32_t rows)
    {
        LocalTensor<float> src = inQue.DeQue<float>();
        LocalTensor<float> dst = outQue.AllocTensor<float>();
        LocalTensor<float> acc = accBuf.Get<float>();
        for (uint32_t r = 0; r < rows; r++) {
            ReduceSum(acc, src[r * width], tmp, width);
            float total = acc.GetValue(0);
            Muls(dst[r * width], src[r * width], 1.0f / total, width);
        }
        outQue.EnQue(dst);
        inQue.FreeTensor(src);
    }

    __aicore__ inline void StoreTile(uint32_t blk, uint32_t rows)
    {
        LocalTensor<float> dst = outQue.DeQue<float>();
        DataCopy(dstGm[blk * rowsEach * width], dst, rows * width);
        outQue.FreeTensor(dst);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQue;
    TQue<QuePosition::VECOUT, 2> outQue;
    TBuf<QuePosition::VECCALC> accBuf;
    LocalTensor<float> tmp;
    GlobalTensor<float> srcGm, dstGm;
    uint32_t rowsTotal = 0, rowsEach = 0, width = 0;
};
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

bool applies(const std::string& rule, const std::string& kernel) {
  const aopt::agent::kernel_rule* r = aopt::agent::find_optimization_rule(rule);
  REQUIRE(r != nullptr);
  return r->applies(kernel);
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("issue_copy_in_ahead loads tile 0 before the loop and tile i + 1 before computing i") {
    const std::string out = aopt::testing::apply_rule("issue_copy_in_ahead", kRowKernel, false);
    CHECK(out.find("        if (blocks > 0) {\n"
                   "            uint32_t blk = 0;\n"
                   "            uint32_t rows = (blk + 1 == blocks) ? rowsTotal - blk * rowsEach : "
                   "rowsEach;\n"
                   "            LoadTile(blk, rows);\n"
                   "        }\n"
                   "        for (uint32_t blk = 0; blk < blocks; ++blk) {\n"
                   "            if (blk + 1 < blocks) {\n"
                   "                uint32_t rowsAhead = ((blk + 1) + 1 == blocks) ? rowsTotal - "
                   "(blk + 1) * rowsEach : rowsEach;\n"
                   "                LoadTile((blk + 1), rowsAhead);\n"
                   "            }\n"
                   "            uint32_t rows = ") != std::string::npos);
    // The declaration the load does not need is neither copied nor moved; the load left the body.
    CHECK(out.find("unusedAhead") == std::string::npos);
    CHECK(out.find("            ScaleRows(rows);") != std::string::npos);
    CHECK(out.find("            LoadTile(blk, rows);\n            ScaleRows") == std::string::npos);

    // The rewind puts the kernel back as it was, byte for byte.
    CHECK(aopt::testing::apply_rule("ahead_to_in_order_copy_in", out, true) == kRowKernel);
    CHECK_FALSE(applies("issue_copy_in_ahead", out));
  }

  TEST_CASE(
      "issue_copy_in_ahead stays away where loading ahead would change what the compute sees") {
    SUBCASE("a compute stage without a scalar wait overlaps through the queues already") {
      const std::string vector_only =
          replaced(replaced(kRowKernel, "            float total = acc.GetValue(0);\n", ""),
                   "1.0f / total", "2.0f");
      CHECK_FALSE(applies("issue_copy_in_ahead", vector_only));
    }
    SUBCASE("a load that sets a member the compute reads") {
      const std::string member = replaced(kRowKernel, "        inQue.EnQue(src);\n",
                                          "        inQue.EnQue(src);\n        lastRows = rows;\n");
      CHECK_FALSE(applies("issue_copy_in_ahead", member));
      const std::string local =
          replaced(kRowKernel, "        inQue.EnQue(src);\n",
                   "        inQue.EnQue(src);\n        params.blockCount = 1;\n");
      CHECK(applies("issue_copy_in_ahead", local));
    }
    SUBCASE("a later stage or the body sets a member the load reads") {
      const std::string reads_offset =
          replaced(kRowKernel, "srcGm[blk * rowsEach * width]", "srcGm[readOffset]");
      CHECK_FALSE(
          applies("issue_copy_in_ahead", replaced(reads_offset, "        outQue.FreeTensor(dst);\n",
                                                  "        outQue.FreeTensor(dst);\n"
                                                  "        readOffset += rows * width;\n")));
      CHECK_FALSE(
          applies("issue_copy_in_ahead",
                  replaced(reads_offset, "            StoreTile(blk, rows);\n",
                           "            StoreTile(blk, rows);\n"
                           "            this->readOffset = (blk + 1) * rowsEach * width;\n")));
      // A member the load does not read may change.
      CHECK(applies("issue_copy_in_ahead",
                    replaced(kRowKernel, "        outQue.FreeTensor(dst);\n",
                             "        outQue.FreeTensor(dst);\n        stored += rows;\n")));
    }
    SUBCASE("a load stage that also computes") {
      const std::string computing =
          replaced(kRowKernel, "        inQue.EnQue(src);\n",
                   "        Muls(src, src, 2.0f, width);\n        inQue.EnQue(src);\n");
      CHECK_FALSE(applies("issue_copy_in_ahead", computing));
    }
    SUBCASE("a body that skips iterations, or a declaration with a side effect, before the load") {
      CHECK_FALSE(applies("issue_copy_in_ahead",
                          replaced(kRowKernel, "            uint32_t unused = rows * 2;\n",
                                   "            if (rows == 0) { continue; }\n")));
      CHECK_FALSE(applies("issue_copy_in_ahead", replaced(kRowKernel, "uint32_t unused = rows * 2;",
                                                          "uint32_t unused = Next();")));
      CHECK_FALSE(applies("issue_copy_in_ahead", replaced(kRowKernel, "uint32_t unused = rows * 2;",
                                                          "uint32_t unused = counter++;")));
    }
    SUBCASE("a queue the load allocates from holds one tile, written or named") {
      const auto with_init = [](const std::string& count, const std::string& constant) {
        return replaced(replaced(kRowKernel, "private:\n",
                                 "    __aicore__ inline void Init()\n    {\n        "
                                 "pipe.InitBuffer(inQue, " +
                                     count + ", 4096);\n    }\n\nprivate:\n"),
                        "using namespace AscendC;\n", "using namespace AscendC;\n" + constant);
      };
      CHECK_FALSE(applies("issue_copy_in_ahead", with_init("1", "")));
      CHECK_FALSE(applies("issue_copy_in_ahead",
                          with_init("BUFFER_NUM", "constexpr int32_t BUFFER_NUM = 1;\n")));
      CHECK(applies("issue_copy_in_ahead",
                    with_init("BUFFER_NUM", "constexpr int32_t BUFFER_NUM = 2;\n")));
      CHECK(applies("issue_copy_in_ahead", with_init("tiling.bufferNum", "")));
    }
    SUBCASE("a loop whose variable or bound the body changes") {
      CHECK_FALSE(
          applies("issue_copy_in_ahead",
                  replaced(kRowKernel, "            StoreTile(blk, rows);\n",
                           "            StoreTile(blk, rows);\n            blocks -= 1;\n")));
    }
  }

  TEST_CASE(
      "issue_copy_in_ahead: the expert's in-order rewind is slower on the simulator, and the "
      "motif brings it back") {
    aopt::testing::expert_bench bench;
    auto expert = aopt::testing::expert_bench::expert("row_absmax_scale_custom");
    const std::string fast = expert->kernel_source;
    const std::string slow = aopt::testing::apply_rule("ahead_to_in_order_copy_in", fast, true);
    CHECK(slow.find("if (tileNum > 0)") == std::string::npos);
    CHECK(slow.find("            CopyIn(t, tileRows);\n            Compute(tileRows);") !=
          std::string::npos);
    const double fast_us = bench.latency_us(expert, fast);
    const double slow_us = bench.latency_us(expert, slow);
    CHECK(slow_us > fast_us * 1.1);
    const std::string again = aopt::testing::apply_rule("issue_copy_in_ahead", slow, false);
    CHECK(bench.latency_us(expert, again) < slow_us);
  }
}
