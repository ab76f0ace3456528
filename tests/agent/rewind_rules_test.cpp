#include "agent/motifs/rewind_rules.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "agent/motifs/optimization_rules.hpp"
#include "kernel_snippets.hpp"

using namespace aopt;
using namespace aopt::agent;
using aopt::agent::testing::kFlagKernel;
using aopt::agent::testing::kQueueKernel;

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

std::string rewind(const std::string& rule, const std::string& kernel) {
  const kernel_rule* r = find_rewind_rule(rule);
  REQUIRE(r != nullptr);
  REQUIRE(r->applies(kernel));
  result<std::string> out = r->apply(kernel);
  REQUIRE(out.ok());
  CHECK(*out != kernel);
  return *out;
}

std::string optimize_rewound(const std::string& rule, const std::string& kernel) {
  const kernel_rule* r = find_optimization_rule(rule);
  REQUIRE(r != nullptr);
  REQUIRE(r->applies(kernel));
  result<std::string> out = r->apply(kernel);
  REQUIRE(out.ok());
  return *out;
}

// The Init of a corpus expert: a former/tail split whose last core takes the remainder.
constexpr const char* kSplitKernel = R"(class KernelElu {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t offset = 0;
        if (blockIdx < formerNum) {
            offset = blockIdx * formerLength;
            this->length = formerLength;
        } else {
            offset = formerNum * formerLength + (blockIdx - formerNum) * tailLength;
            this->length = tailLength;
        }
        if (blockIdx + 1 == GetBlockNum()) {
            this->length = totalLength - offset;
        }
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, length);
    }
};
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("every rewind rule is described and names an existing counterpart") {
    REQUIRE(rewind_rules().size() == 17);
    for (const kernel_rule& r : rewind_rules()) {
      CAPTURE(r.name);
      CHECK_FALSE(r.title.empty());
      CHECK_FALSE(r.description.empty());
      CHECK_FALSE(r.bottleneck.empty());
      CHECK_FALSE(r.tags.empty());
      CHECK_FALSE(r.looks_for.empty());
      const kernel_rule* forward = find_optimization_rule(r.counterpart);
      REQUIRE(forward != nullptr);
      CHECK_FALSE(forward->looks_for.empty());
      CHECK(forward->counterpart == r.name);
    }
    CHECK(find_rewind_rule("nope") == nullptr);
  }

  TEST_CASE("double_to_single_buffer gives every queue one buffer") {
    std::string out = rewind("double_to_single_buffer", kQueueKernel);
    CHECK(occurrences(out, "pipe.InitBuffer(inQueueX, 1, tileLength * sizeof(half));") == 1);
    CHECK(occurrences(out, "pipe.InitBuffer(inQueueY, 1, tileLength * sizeof(half));") == 1);
    CHECK(occurrences(out, "pipe.InitBuffer(outQueueZ, 1, tileLength * sizeof(half));") == 1);
    CHECK(occurrences(out, "pipe.InitBuffer(tmpBuf, tileLength * sizeof(half));") == 1);
    CHECK(occurrences(out, "constexpr int32_t BUFFER_NUM = 1;") == 1);
    CHECK_FALSE(find_rewind_rule("double_to_single_buffer")->applies(out));
    CHECK(find_rewind_rule("double_to_single_buffer")->apply(out).error().code() ==
          status_code::failed_precondition);
  }

  TEST_CASE("add_full_barriers fences every stage call of the Process loop") {
    std::string out = rewind("add_full_barriers", kQueueKernel);
    CHECK(occurrences(out, "            CopyIn(i);\n            PipeBarrier<PIPE_ALL>();\n") == 1);
    CHECK(occurrences(out, "            Compute();\n            PipeBarrier<PIPE_ALL>();\n") == 1);
    CHECK(occurrences(out, "            CopyOut(i);\n            PipeBarrier<PIPE_ALL>();\n") == 1);
    CHECK_FALSE(find_rewind_rule("add_full_barriers")->applies(out));
    CHECK(optimize_rewound("remove_stage_barriers", out) == kQueueKernel);
  }

  TEST_CASE("vector_to_scalar turns the first element-wise op into a fenced scalar loop") {
    std::string out = rewind("vector_to_scalar", kQueueKernel);
    CHECK(occurrences(out, "Muls(") == 0);
    CHECK(occurrences(out, "Add(zLocal, tmp, yLocal, tileLength);") == 1);
    CHECK(occurrences(out,
                      "for (uint32_t scalarIdx = 0; scalarIdx < static_cast<uint32_t>(tileLength); "
                      "scalarIdx++) {") == 1);
    CHECK(occurrences(out,
                      "tmp.SetValue(scalarIdx, "
                      "static_cast<half>(static_cast<float>(xLocal.GetValue(scalarIdx)) * "
                      "static_cast<float>(static_cast<half>(alpha))));") == 1);
    CHECK(occurrences(out, "PipeBarrier<PIPE_ALL>();") == 2);
    std::string back = optimize_rewound("scalar_loop_to_vector", out);
    CHECK(occurrences(back, "        Muls(tmp, xLocal, static_cast<half>(alpha), tileLength);\n") ==
          1);
    CHECK(occurrences(back, "GetValue") == 0);
    CHECK(occurrences(back, "PIPE_ALL") == 0);
  }

  TEST_CASE("vector_to_scalar writes max/min through temporaries and the refiner reads them back") {
    std::string kernel = std::string(kQueueKernel);
    auto swap = [&](const std::string& from, const std::string& to) {
      REQUIRE(kernel.find(from) != std::string::npos);
      kernel.replace(kernel.find(from), from.size(), to);
    };
    swap("Add(zLocal, tmp, yLocal, tileLength);", "Max(zLocal, tmp, yLocal, tileLength);");
    swap("Muls(tmp, xLocal, static_cast<half>(alpha), tileLength);",
         "Abs(tmp, xLocal, tileLength);");
    std::string out = rewind("vector_to_scalar", kernel);
    CHECK(occurrences(out, "float scalarLhs = static_cast<float>(tmp.GetValue(scalarIdx));") == 1);
    CHECK(occurrences(
              out,
              "zLocal.SetValue(scalarIdx, static_cast<half>(scalarLhs > scalarRhs ? scalarLhs : "
              "scalarRhs));") == 1);
    std::string back = optimize_rewound("scalar_loop_to_vector", out);
    CHECK(occurrences(back, "Max(zLocal, tmp, yLocal, tileLength);") == 1);
  }

  TEST_CASE("chunked_copies splits count-form copies and merge_chunked_copies restores them") {
    std::string out = rewind("chunked_copies", kQueueKernel);
    CHECK(occurrences(
              out, "DataCopy(xLocal[chunkOffset], xGm[(progress * tileLength) + chunkOffset], ") ==
          1);
    CHECK(occurrences(
              out, "DataCopy(zGm[(progress * tileLength) + chunkOffset], zLocal[chunkOffset], ") ==
          1);
    CHECK(occurrences(out, "chunkOffset += static_cast<uint32_t>(256 / sizeof(half))") == 3);
    CHECK(optimize_rewound("merge_chunked_copies", out) == kQueueKernel);
  }

  TEST_CASE("small_tile shrinks the tile member and enlarge_tile restores it") {
    std::string out = rewind("small_tile", kQueueKernel);
    CHECK(occurrences(
              out,
              "this->tileLength = (tileLength >= 256 ? tileLength / 256 * 64 : tileLength);") == 1);
    CHECK(optimize_rewound("enlarge_tile", out) == kQueueKernel);
    std::string constant = "constexpr uint32_t TILE_LENGTH = 4096;\n";
    CHECK(rewind("small_tile", constant) == "constexpr uint32_t TILE_LENGTH = 1024;\n");
  }

  TEST_CASE(
      "balanced_to_naive_split gives every core the tail share and naive_to_balanced_split "
      "restores the former cores") {
    std::string out = rewind("balanced_to_naive_split", kSplitKernel);
    CHECK(occurrences(out,
                      "        uint32_t offset = 0;\n"
                      "        offset = blockIdx * tailLength;\n"
                      "        this->length = tailLength;\n"
                      "        if (blockIdx + 1 == GetBlockNum()) {\n") == 1);
    CHECK(occurrences(out, "formerLength;") == 0);
    CHECK_FALSE(find_rewind_rule("balanced_to_naive_split")->applies(out));
    CHECK(optimize_rewound("naive_to_balanced_split", out) == kSplitKernel);
  }

  TEST_CASE("balanced_to_naive_split needs the last core to take the remainder") {
    std::string kernel = kSplitKernel;
    const std::string remainder =
        "        if (blockIdx + 1 == GetBlockNum()) {\n"
        "            this->length = totalLength - offset;\n"
        "        }\n";
    REQUIRE(kernel.find(remainder) != std::string::npos);
    std::string without = kernel;
    without.erase(without.find(remainder), remainder.size());
    CHECK_FALSE(find_rewind_rule("balanced_to_naive_split")->applies(without));
    // A remainder for another length does not make the naive split correct either.
    std::string other = kernel;
    other.replace(other.find("this->length = totalLength"), 26, "this->count = totalLength");
    CHECK_FALSE(find_rewind_rule("balanced_to_naive_split")->applies(other));
  }

  TEST_CASE("flags_to_full_barriers replaces each wait by a full barrier and drops the flags") {
    std::string out = rewind("flags_to_full_barriers", kFlagKernel);
    CHECK(occurrences(out, "SetFlag") == 0);
    CHECK(occurrences(out, "WaitFlag") == 0);
    CHECK(occurrences(out, "event_t") == 0);
    CHECK(occurrences(out, "            PipeBarrier<PIPE_ALL>();\n") == 2);
    std::string back = optimize_rewound("full_barrier_to_flags", out);
    CHECK(occurrences(back, "PIPE_ALL") == 0);
    CHECK(occurrences(back, "SetFlag<HardEvent::MTE2_V>(flagEvent);") == 1);
    CHECK(occurrences(back, "WaitFlag<HardEvent::V_S>(flagEvent);") == 1);
    CHECK(occurrences(back, "pipe.FetchEventID(HardEvent::V_S)") == 1);
  }

  TEST_CASE("extra_gm_round_trip adds a redundant read-back and rewrite of the output") {
    std::string out = rewind("extra_gm_round_trip", kQueueKernel);
    CHECK(occurrences(out,
                      "        DataCopy(zGm[progress * tileLength], zLocal, tileLength);\n"
                      "        PipeBarrier<PIPE_ALL>();\n"
                      "        DataCopy(zLocal, zGm[progress * tileLength], tileLength);\n"
                      "        PipeBarrier<PIPE_ALL>();\n"
                      "        DataCopy(zGm[progress * tileLength], zLocal, tileLength);\n") == 1);
    CHECK(optimize_rewound("remove_gm_round_trip", out) == kQueueKernel);
  }

  TEST_CASE("rules that find nothing to change do not apply") {
    const std::string empty = "int main() { return 0; }\n";
    for (const kernel_rule& r : rewind_rules()) {
      CAPTURE(r.name);
      CHECK_FALSE(r.applies(empty));
      CHECK(r.apply(empty).error().code() == status_code::failed_precondition);
    }
  }

  TEST_CASE("every rewind rule applies to some corpus expert and its counterpart applies back") {
    namespace fs = std::filesystem;
    fs::path experts = fs::path(AOPT_TEST_DATA_DIR) / ".." / ".." / "corpus" / "experts";
    REQUIRE(fs::is_directory(experts));
    std::map<std::string, int> applied;
    for (const fs::directory_entry& op : fs::directory_iterator(experts)) {
      for (const fs::directory_entry& f : fs::directory_iterator(op.path() / "op_kernel")) {
        std::ifstream in(f.path());
        std::stringstream buf;
        buf << in.rdbuf();
        const std::string kernel = buf.str();
        for (const kernel_rule& r : rewind_rules()) {
          if (!r.applies(kernel)) continue;
          CAPTURE(f.path().string());
          CAPTURE(r.name);
          result<std::string> slow = r.apply(kernel);
          REQUIRE(slow.ok());
          CHECK(*slow != kernel);
          CHECK(find_optimization_rule(r.counterpart)->applies(*slow));
          ++applied[r.name];
        }
      }
    }
    for (const kernel_rule& r : rewind_rules()) {
      CAPTURE(r.name);
      CHECK(applied[r.name] > 0);
    }
  }

}  // TEST_SUITE

namespace {

// A cube kernel's queues written for this test as the public low-level matmul samples declare
// them: L1 operands double-buffered, L0 single.
const char* kCubeQueues = R"(class KernelMm {
public:
    __aicore__ inline void Init()
    {
        pipe.InitBuffer(inQueueA1, 2, 32 * 32 * sizeof(half));
        pipe.InitBuffer(inQueueB1, 2, 32 * 64 * sizeof(half));
        pipe.InitBuffer(inQueueA2, 1, 32 * 32 * sizeof(half));
        pipe.InitBuffer(inQueueB2, 1, 32 * 64 * sizeof(half));
        pipe.InitBuffer(outQueueCO1, 1, 32 * 64 * sizeof(float));
        pipe.InitBuffer(outQueue, 2, 32 * 64 * sizeof(float));
    }
    TPipe pipe;
    TQue<TPosition::A1, 2> inQueueA1;
    TQue<TPosition::B1, 2> inQueueB1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    TQue<QuePosition::VECOUT, 2> outQueue;
};
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the L1 rules move only the cube's A1/B1 queues; the vector rules leave the cube's") {
    const std::string single_l1 = rewind("l1_double_to_single_buffer", kCubeQueues);
    CHECK(single_l1.find("InitBuffer(inQueueA1, 1,") != std::string::npos);
    CHECK(single_l1.find("InitBuffer(inQueueB1, 1,") != std::string::npos);
    CHECK(single_l1.find("InitBuffer(outQueue, 2,") != std::string::npos);  // a vector queue
    // The optimization gives L1 its two buffers back and touches L0 nowhere.
    const result<std::string> back =
        find_optimization_rule("l1_single_to_double_buffer")->apply(single_l1);
    REQUIRE(back.ok());
    CHECK(*back == kCubeQueues);
    // The vector rule single-buffers the vector queue only, and doubles nothing of the cube.
    const std::string single = rewind("double_to_single_buffer", kCubeQueues);
    CHECK(single.find("InitBuffer(outQueue, 1,") != std::string::npos);
    CHECK(single.find("InitBuffer(inQueueA1, 2,") != std::string::npos);
    const result<std::string> doubled =
        find_optimization_rule("single_to_double_buffer")->apply(single);
    REQUIRE(doubled.ok());
    CHECK(doubled->find("InitBuffer(inQueueA2, 1,") != std::string::npos);
    CHECK(doubled->find("InitBuffer(outQueueCO1, 1,") != std::string::npos);
  }
}

TEST_SUITE("agent") {
  TEST_CASE("chunked_copies leaves copies whose third argument is a parameter structure alone") {
    // Cube copies take Nd2NzParams, vector copies DataCopyParams: neither is an element count,
    // and chunking them would not compile.
    const char* kernel = R"(class K {
public:
    __aicore__ inline void CopyIn()
    {
        LocalTensor<half> a1 = inQueueA1.AllocTensor<half>();
        DataCopy(a1, aGm[0], Nd2NzParams(1, 32, 32, 0, 64, 32, 1, 0));
        DataCopyParams rows{4, 2, 0, 0};
        LocalTensor<float> x = inQueueX.AllocTensor<float>();
        DataCopy(x, xGm[0], rows);
        DataCopy(x, xGm[0], {4, 2, 0, 0});
    }
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::VECIN, 1> inQueueX;
    GlobalTensor<half> aGm;
    GlobalTensor<float> xGm;
};
)";
    CHECK_FALSE(find_rewind_rule("chunked_copies")->applies(kernel));
  }
}
