// Stage II on real kernels (issue 35): motifs match a kernel's structure, not its spelling. The
// kernel below is ours, written in the style of public AscendC vector kernels, with its queue
// depth under a name no naming rule knows.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/kernel_text/tiling_names.hpp"
#include "agent/motifs/optimization_rules.hpp"
#include "agent/motifs/rewind_rules.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

const char* kRenamedDepthKernel = R"(#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t QUE_DEPTH = 1;

class KernelScaleShift {
public:
    __aicore__ inline KernelScaleShift() {}
    __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst, uint32_t total, uint32_t tile)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        loops = blockLen / tileLen;
        srcGm.SetGlobalBuffer((__gm__ float*)src + GetBlockIdx() * blockLen, blockLen);
        dstGm.SetGlobalBuffer((__gm__ float*)dst + GetBlockIdx() * blockLen, blockLen);
        pipe.InitBuffer(qIn, QUE_DEPTH, tileLen * sizeof(float));
        pipe.InitBuffer(qOut, QUE_DEPTH, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < loops; i++) {
            LocalTensor<float> a = qIn.AllocTensor<float>();
            DataCopy(a, srcGm[i * tileLen], tileLen);
            qIn.EnQue(a);
            LocalTensor<float> b = qIn.DeQue<float>();
            LocalTensor<float> c = qOut.AllocTensor<float>();
            Muls(c, b, 2.0f, tileLen);
            Adds(c, c, 1.0f, tileLen);
            qOut.EnQue<float>(c);
            qIn.FreeTensor(b);
            LocalTensor<float> d = qOut.DeQue<float>();
            DataCopy(dstGm[i * tileLen], d, tileLen);
            qOut.FreeTensor(d);
        }
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUE_DEPTH> qIn;
    TQue<QuePosition::VECOUT, QUE_DEPTH> qOut;
    GlobalTensor<float> srcGm;
    GlobalTensor<float> dstGm;
    uint32_t blockLen;
    uint32_t tileLen;
    uint32_t loops;
};
)";

// Full barriers as real kernels spell them: the intrinsic and the qualified API.
const char* kSpelledBarrierKernel = R"(#include "kernel_operator.h"

class KernelClampRows {
public:
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; r++) {
            AscendC::LocalTensor<float> work = workBuf.Get<float>();
            AscendC::DataCopy(work, srcGm[r * rowLen], rowLen);
            pipe_barrier(PIPE_ALL);
            AscendC::Maxs(work, work, lower, rowLen);
            AscendC::PipeBarrier<PIPE_ALL>();
            AscendC::DataCopy(dstGm[r * rowLen], work, rowLen);
            pipe_barrier(PIPE_ALL);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> workBuf;
    AscendC::GlobalTensor<float> srcGm;
    AscendC::GlobalTensor<float> dstGm;
    uint32_t rowCount = 0;
    uint32_t rowLen = 0;
    float lower = 0;
};
)";

// An index fill as public top-k kernels write it: TBuf buffers, tensors declared several to a
// line, a C-style cast on the index, a loop variable no rule names.
const char* kIndexFillKernel = R"(#include "kernel_operator.h"
using namespace AscendC;

class KernelTopRows {
public:
    __aicore__ inline void Init(uint32_t rows)
    {
        pipe.InitBuffer(posBuf, rows * sizeof(int32_t));
        pipe.InitBuffer(valBuf, rows * sizeof(float));
        rowCount = rows;
    }
    __aicore__ inline void Process()
    {
        posLocal = posBuf.Get<int32_t>();
        for (int32_t k = 0; k < rowCount; k++) {
            posLocal.SetValue((uint32_t)k, k);
        }
        valLocal = valBuf.Get<float>();
        for (uint32_t j = 0; j < rowCount; ++j) {
            valLocal.SetValue(j, static_cast<float>(j) + startValue);
        }
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> posBuf, valBuf;
    LocalTensor<int32_t> keyLocal, posLocal;
    LocalTensor<float> valLocal;
    int32_t rowCount = 0;
    float startValue = 1.0f;
};
)";

std::string wild_file(const std::string& relative) {
  const std::filesystem::path p =
      std::filesystem::path(AOPT_SOURCE_DIR) / ".." / "shared" / "wild" / relative;
  std::ifstream in(p);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("an index fill becomes CreateVecIndex whatever its loop, tensor and casts are called") {
    const kernel_rule* r = find_optimization_rule("scalar_index_fill_to_vector");
    REQUIRE(r != nullptr);
    REQUIRE(r->applies(kIndexFillKernel));
    result<std::string> out = r->apply(kIndexFillKernel);
    REQUIRE(out.ok());
    CHECK(out->find("        CreateVecIndex(posLocal, static_cast<int32_t>(0), rowCount);\n") !=
          std::string::npos);
    CHECK(out->find(
              "        CreateVecIndex(valLocal, static_cast<float>(startValue), rowCount);\n") !=
          std::string::npos);
    CHECK(out->find("SetValue") == std::string::npos);
    // The de-optimization writes the loop back, and the optimization finds it again.
    const kernel_rule* rewind = find_rewind_rule("index_fill_to_scalar_loop");
    REQUIRE(rewind != nullptr);
    result<std::string> slow = rewind->apply(*out);
    REQUIRE(slow.ok());
    CHECK(slow->find("CreateVecIndex") == std::string::npos);
    CHECK(r->apply(*slow).ok());
  }

  TEST_CASE("an index fill is not found where the loop writes anything but its index") {
    const kernel_rule* r = find_optimization_rule("scalar_index_fill_to_vector");
    REQUIRE(r != nullptr);
    CHECK_FALSE(r->looks_for.empty());
    auto replaced = [](std::string text, const std::string& from, const std::string& to) {
      const size_t at = text.find(from);
      REQUIRE(at != std::string::npos);
      return text.replace(at, from.size(), to);
    };
    const std::string index_only =
        replaced(kIndexFillKernel, "valLocal.SetValue(j, static_cast<float>(j) + startValue);",
                 "valLocal.SetValue(j, valLocal.GetValue(j) + startValue);");
    REQUIRE(r->apply(index_only).ok());
    const std::string strided =
        replaced(index_only, "posLocal.SetValue((uint32_t)k, k);", "posLocal.SetValue(2 * k, k);");
    CHECK_FALSE(r->applies(strided));
    const std::string guarded = replaced(index_only, "posLocal.SetValue((uint32_t)k, k);",
                                         "if (k > 2) { posLocal.SetValue((uint32_t)k, k); }");
    CHECK_FALSE(r->applies(guarded));
    const std::string counted = replaced(index_only, "posLocal.SetValue((uint32_t)k, k);",
                                         "posLocal.SetValue((uint32_t)k, k);\n            n++;");
    CHECK_FALSE(r->applies(counted));
    // A tensor of an element type CreateVecIndex does not fill (int64_t) is left alone.
    CHECK_FALSE(r->applies(replaced(index_only, "LocalTensor<int32_t> keyLocal, posLocal;",
                                    "LocalTensor<int64_t> keyLocal, posLocal;")));
  }

  TEST_CASE("a member function named InitBuffer is no queue's InitBuffer to the depth rules") {
    // Public kernels (knn, bev_pool, select_idx_with_mask) carve their UB in a member called
    // InitBuffer(), which they call with no argument.
    const std::string kernel = R"(class KernelCopy {
public:
    __aicore__ inline void Init() { InitBuffer(); }
    __aicore__ inline void InitBuffer()
    {
        pipe.InitBuffer(qIn, 1, tileLen * sizeof(float));
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qIn;
};
)";
    const kernel_rule* forward = find_optimization_rule("single_to_double_buffer");
    REQUIRE(forward != nullptr);
    result<std::string> doubled = forward->apply(kernel);
    REQUIRE(doubled.ok());
    CHECK(doubled->find("pipe.InitBuffer(qIn, 2, tileLen * sizeof(float));") != std::string::npos);
    CHECK(doubled->find("__aicore__ inline void Init() { InitBuffer(); }") != std::string::npos);
    const kernel_rule* rewind = find_rewind_rule("double_to_single_buffer");
    REQUIRE(rewind != nullptr);
    result<std::string> single = rewind->apply(*doubled);
    REQUIRE(single.ok());
    CHECK(single->find("pipe.InitBuffer(qIn, 1, tileLen * sizeof(float));") != std::string::npos);
  }

  TEST_CASE("the index fill of a real top-k kernel is vectorized, real scalar loops are not") {
    const std::string knn = wild_file("ds_knn/op_kernel/knn.h");
    const std::string nms = wild_file("ds_nms3d/op_kernel/nms3d.cpp");
    const std::string cylinder = wild_file("ds_cylinder_query/op_kernel/cylinder_query.cpp");
    if (knn.empty() || nms.empty() || cylinder.empty()) {
      MESSAGE("skipped: no wild set beside the checkout");
      return;
    }
    const kernel_rule* r = find_optimization_rule("scalar_index_fill_to_vector");
    REQUIRE(r != nullptr);
    REQUIRE(r->applies(knn));
    result<std::string> out = r->apply(knn);
    REQUIRE(out.ok());
    CHECK(out->find("CreateVecIndex(constIdxLocal, static_cast<int32_t>(0), compNum);") !=
          std::string::npos);
    CHECK(out->find("constIdxLocal.SetValue") == std::string::npos);
    // The same kernel with the tensor and the loop variable renamed is the same structure.
    std::string renamed = knn;
    auto rename = [&](const std::string& from, const std::string& to) {
      for (size_t at = renamed.find(from); at != std::string::npos;
           at = renamed.find(from, at + to.size())) {
        renamed.replace(at, from.size(), to);
      }
    };
    rename("constIdxLocal", "slotOrder");
    rename("int32_t index = 0; index < compNum; index++", "int32_t w = 0; w < compNum; w++");
    rename("SetValue((uint32_t)index, index)", "SetValue((uint32_t)w, w)");
    REQUIRE(renamed.find("slotOrder.SetValue((uint32_t)w, w);") != std::string::npos);
    result<std::string> renamed_out = r->apply(renamed);
    REQUIRE(renamed_out.ok());
    CHECK(renamed_out->find("CreateVecIndex(slotOrder, static_cast<int32_t>(0), compNum);") !=
          std::string::npos);
    // nms3d's SetValue loops copy box coordinates and write a flag under a condition;
    // cylinder_query's SetValues are single stores of mask patterns, in no loop.
    CHECK_FALSE(r->applies(nms));
    CHECK_FALSE(r->applies(cylinder));
    // knn keeps its buffers in TBufs and carves them in a member InitBuffer(): no queue depth.
    CHECK_FALSE(find_optimization_rule("single_to_double_buffer")->applies(knn));
  }

  TEST_CASE("fine-grained sync finds full barriers however they are spelled") {
    const kernel_rule* r = find_optimization_rule("full_barrier_to_flags");
    REQUIRE(r != nullptr);
    REQUIRE(r->applies(kSpelledBarrierKernel));
    result<std::string> out = r->apply(kSpelledBarrierKernel);
    REQUIRE(out.ok());
    CHECK(out->find("PIPE_ALL") == std::string::npos);
    CHECK(out->find("SetFlag<HardEvent::MTE2_V>") != std::string::npos);
  }

  TEST_CASE("double buffering matches a queue depth by its use in InitBuffer, whatever its name") {
    // No naming rule calls QUE_DEPTH a buffer count ("depth" even marks a fixed quantity).
    CHECK(classify_tiling_name("QUE_DEPTH") == tiling_role::none);
    const kernel_rule* r = find_optimization_rule("single_to_double_buffer");
    REQUIRE(r != nullptr);
    REQUIRE(r->applies(kRenamedDepthKernel));
    result<std::string> out = r->apply(kRenamedDepthKernel);
    REQUIRE(out.ok());
    CHECK(out->find("constexpr int32_t QUE_DEPTH = 2;") != std::string::npos);
    // Only the depth changed: the InitBuffer calls still name the constant.
    CHECK(out->find("pipe.InitBuffer(qIn, QUE_DEPTH, tileLen * sizeof(float));") !=
          std::string::npos);
    // A constant of the same value that is no queue's count is left alone.
    const std::string other = std::string(kRenamedDepthKernel) + "constexpr int32_t ROUNDS = 1;\n";
    result<std::string> out2 = r->apply(other);
    REQUIRE(out2.ok());
    CHECK(out2->find("constexpr int32_t QUE_DEPTH = 2;") != std::string::npos);
    CHECK(out2->find("constexpr int32_t ROUNDS = 1;") != std::string::npos);
  }
}
