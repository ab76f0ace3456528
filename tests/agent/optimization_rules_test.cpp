#include "agent/motifs/optimization_rules.hpp"

#include <doctest/doctest.h>

#include <map>

#include "kernel_snippets.hpp"

using namespace aopt;
using namespace aopt::agent;
using aopt::agent::testing::kBarrierKernel;
using aopt::agent::testing::kQueueKernel;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

std::string optimize(const std::string& rule, const std::string& kernel) {
  const kernel_rule* r = find_optimization_rule(rule);
  REQUIRE(r != nullptr);
  REQUIRE(r->applies(kernel));
  result<std::string> out = r->apply(kernel);
  REQUIRE(out.ok());
  CHECK(*out != kernel);
  return *out;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("full_barrier_to_flags orders only the pipes on either side of each barrier") {
    std::string out = optimize("full_barrier_to_flags", kBarrierKernel);
    CHECK(count(out, "PIPE_ALL") == 0);
    CHECK(count(out, "SetFlag<HardEvent::MTE2_V>(flagEvent);") == 1);
    CHECK(count(out, "SetFlag<HardEvent::V_MTE3>(flagEvent);") == 1);
    // At the end of the loop body the next pipe is the copy-in of the next iteration.
    CHECK(count(out, "SetFlag<HardEvent::MTE3_MTE2>(flagEvent);") == 1);
    CHECK(count(out,
                "            {\n                event_t flagEvent = "
                "static_cast<event_t>(pipe.FetchEventID("
                "HardEvent::MTE2_V));\n") == 1);
  }

  TEST_CASE("a barrier between two vector ops becomes a vector barrier") {
    std::string kernel =
        "class K {\n void Compute() {\n  Add(a, b, c, n);\n  PipeBarrier<PIPE_ALL>();\n"
        "  Mul(a, a, c, n);\n }\n TPipe pipe;\n LocalTensor<float> a, b, c;\n};\n";
    std::string out = optimize("full_barrier_to_flags", kernel);
    CHECK(count(out, "  PipeBarrier<PIPE_V>();\n") == 1);
  }

  TEST_CASE("remove_stage_barriers needs queues to order the stages") {
    CHECK_FALSE(find_optimization_rule("remove_stage_barriers")->applies(kBarrierKernel));
  }

  TEST_CASE("single_to_double_buffer doubles queue buffers but not TBufs") {
    std::string kernel = std::string(kQueueKernel);
    kernel.replace(kernel.find("BUFFER_NUM = 2"), 14, "BUFFER_NUM = 1");
    kernel.replace(kernel.find("inQueueY, bufferNum"), 19, "inQueueY, 1");
    std::string out = optimize("single_to_double_buffer", kernel);
    CHECK(count(out, "constexpr int32_t BUFFER_NUM = 2;") == 1);
    CHECK(count(out, "pipe.InitBuffer(inQueueY, 2, tileLength * sizeof(half));") == 1);
    CHECK(count(out, "pipe.InitBuffer(tmpBuf, tileLength * sizeof(half));") == 1);
    std::string doubled = std::string(kQueueKernel);
    doubled.replace(doubled.find("inQueueY, bufferNum"), 19, "inQueueY, BUFFER_NUM");
    CHECK_FALSE(find_optimization_rule("single_to_double_buffer")->applies(doubled));
  }

  TEST_CASE("single_to_double_buffer replaces a runtime buffer count the host may set to 1") {
    std::string out = optimize("single_to_double_buffer", kQueueKernel);
    CHECK(count(out, "pipe.InitBuffer(inQueueY, 2, tileLength * sizeof(half));") == 1);
    CHECK(count(out, "pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));") == 1);
  }

  TEST_CASE("scalar_loop_to_vector recognises a hand-written element-wise loop") {
    std::string kernel =
        "void Compute() {\n"
        "    LocalTensor<float> x = xq.DeQue<float>();\n"
        "    LocalTensor<float> y = yq.DeQue<float>();\n"
        "    LocalTensor<float> z = zq.AllocTensor<float>();\n"
        "    for (uint32_t i = 0; i < count; ++i) {\n"
        "        z.SetValue(i, x.GetValue(i) - y.GetValue(i));\n"
        "    }\n"
        "    for (int j = 0; j < count; j++) {\n"
        "        z.SetValue(j, 2.0f * z.GetValue(j));\n"
        "    }\n"
        "}\n";
    std::string out = optimize("scalar_loop_to_vector", kernel);
    CHECK(count(out, "    Sub(z, x, y, count);\n") == 1);
    out = optimize("scalar_loop_to_vector", out);
    CHECK(count(out, "    Muls(z, z, static_cast<float>(2.0f), count);\n") == 1);
    CHECK(count(out, "GetValue") == 0);
  }

  TEST_CASE("enlarge_tile doubles a hard-coded kernel tile") {
    CHECK(optimize("enlarge_tile", "constexpr uint32_t TILE_LENGTH = 512;\n") ==
          "constexpr uint32_t TILE_LENGTH = 1024;\n");
    CHECK_FALSE(
        find_optimization_rule("enlarge_tile")->applies("constexpr uint32_t ALIGN_NUM = 16;\n"));
  }

  TEST_CASE("naive_to_balanced_split balances a hand-written naive split over rows") {
    std::string kernel =
        "void Init(uint32_t rows, uint32_t formerNum, uint32_t formerRows, uint32_t tailRows)\n"
        "{\n"
        "    uint32_t core = GetBlockIdx();\n"
        "    rowStart = core * tailRows;\n"
        "    rowCount = tailRows;\n"
        "    if (core + 1 == GetBlockNum()) {\n"
        "        rowCount = rows - rowStart;\n"
        "    }\n"
        "}\n";
    std::string out = optimize("naive_to_balanced_split", kernel);
    CHECK(count(out,
                "    if (core < formerNum) {\n"
                "        rowStart = core * formerRows;\n"
                "        rowCount = formerRows;\n"
                "    } else {\n"
                "        rowStart = formerNum * formerRows + (core - formerNum) * tailRows;\n"
                "        rowCount = tailRows;\n"
                "    }\n"
                "    if (core + 1 == GetBlockNum()) {\n") == 1);
    // Without the former cores' length among the parameters there is nothing to balance with.
    std::string no_former = kernel;
    no_former.replace(no_former.find("uint32_t formerRows, "), 21, "");
    CHECK_FALSE(find_optimization_rule("naive_to_balanced_split")->applies(no_former));
  }

  TEST_CASE("merge_chunked_copies merges a hand-written chunk loop") {
    std::string kernel =
        "void CopyIn() {\n"
        "    for (uint32_t off = 0; off < len; off += 64) {\n"
        "        DataCopy(xLocal[off], xGm[base + off], 64);\n"
        "    }\n"
        "}\n";
    CHECK(optimize("merge_chunked_copies", kernel) ==
          "void CopyIn() {\n    DataCopy(xLocal, xGm[base], len);\n}\n");
  }

}  // TEST_SUITE

namespace {

// Two kernels written fresh in the samples' style: one takes the host's element tile and counts
// its tiles by a ceiling division, one takes rows per tile the same way.
constexpr const char* kElementTileKernel = R"(class KernelSoftplus {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        uint32_t loops = (blockLength + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < loops; i++) {
            uint32_t n = i + 1 == loops ? blockLength - i * tileLength : tileLength;
            CopyIn(i, n);
            Compute(n);
            CopyOut(i, n);
        }
    }
};
)";

constexpr const char* kRowTileKernel = R"(class KernelRowScale {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t rowCount, uint32_t rowsPerTile)
    {
        this->rowCount = rowCount;
        this->rowsPerTile = rowsPerTile;
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < (rowCount + rowsPerTile - 1) / rowsPerTile; t++) {
            Step(t);
        }
    }
};
)";

std::map<std::string, std::string> retunes_of(const std::string& rule, const std::string& kernel) {
  const kernel_rule* r = find_optimization_rule(rule);
  REQUIRE(r != nullptr);
  REQUIRE(r->retunes);
  std::map<std::string, std::string> out;
  for (rule_variant& v : r->retunes(kernel)) out[v.label] = std::move(v.kernel);
  return out;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a kernel that takes the host's whole tile is offered the tile split in 2, 4 and 8") {
    std::map<std::string, std::string> split = retunes_of("enlarge_tile", kElementTileKernel);
    REQUIRE(split.size() == 3);
    CHECK(split["split in 2"].find(
              "this->tileLength = (tileLength >= 64 ? tileLength / 2 / 32 * 32 : tileLength);") !=
          std::string::npos);
    CHECK(split["split in 8"].find("tileLength >= 256 ? tileLength / 8 / 32 * 32") !=
          std::string::npos);
    // Only the member changes: the buffers keep the host tile's size.
    CHECK(split["split in 4"].find("InitBuffer(inQueueX, 2, tileLength * sizeof(float))") !=
          std::string::npos);

    std::map<std::string, std::string> rows = retunes_of("enlarge_tile", kRowTileKernel);
    REQUIRE(rows.count("split in 2") == 1);
    CHECK(rows["split in 2"].find(
              "this->rowsPerTile = (rowsPerTile >= 2 ? rowsPerTile / 2 : rowsPerTile);") !=
          std::string::npos);
  }

  TEST_CASE("no tile split where a smaller tile would leave elements uncovered") {
    // The count is the host's (the bare name inside Init is the parameter), or a floor division:
    // a smaller member would then cover only part of the block.
    std::string host_count = kElementTileKernel;
    const std::string ceil_in_process =
        "uint32_t loops = (blockLength + this->tileLength - 1) / this->tileLength;";
    REQUIRE(host_count.find(ceil_in_process) != std::string::npos);
    host_count.replace(host_count.find(ceil_in_process), ceil_in_process.size(),
                       "uint32_t loops = this->loops;");
    host_count.replace(host_count.find("this->tileLength = tileLength;"), 0,
                       "this->loops = (blockLength + tileLength - 1) / tileLength;\n");
    CHECK(retunes_of("enlarge_tile", host_count).empty());

    std::string floor_count = kRowTileKernel;
    const std::string ceil = "(rowCount + rowsPerTile - 1) / rowsPerTile";
    floor_count.replace(floor_count.find(ceil), ceil.size(), "rowCount / rowsPerTile");
    CHECK(retunes_of("enlarge_tile", floor_count).empty());
  }
}
