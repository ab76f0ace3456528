// Stage II on real kernels (issue 35): motifs match a kernel's structure, not its spelling. The
// kernel below is ours, written in the style of public AscendC vector kernels, with its queue
// depth under a name no naming rule knows.
#include <doctest/doctest.h>

#include "agent/kernel_text/tiling_names.hpp"
#include "agent/motifs/optimization_rules.hpp"

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

}  // namespace

TEST_SUITE("agent") {
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
