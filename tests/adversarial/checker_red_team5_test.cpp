// Issue 30 item 7, a fifth red-team round: GM data races, written as an attacker would against
// the honest tests/data/ops/add_tiled (z = x + y, float16, 8 cores), each followed by the honest
// candidate at its true latency. The simulator runs a core's instructions in program order and
// its blocks one after another, so a kernel that hands data through GM without the
// synchronisation the hardware needs computes the right values here and may not there. Class:
//   GM round trip in a core   each core stores its slice of x into z on MTE3 and loads z back on
//                             MTE2 with nothing ordering the load after the store, or with what
//                             does not: a flag of the other direction (MTE2_MTE3), a barrier of
//                             one pipe (PipeBarrier<PIPE_MTE3>). All three scored ok at 9.30 us,
//                             where the same kernel ordered by PipeBarrier<PIPE_ALL> or the
//                             MTE3_MTE2 flag takes 9.82 us: the load overlapped the store it
//                             reads. The hazard detector now orders the GM accesses of the DMA
//                             pipes as it orders UB ones (hazard_detector.hpp): data_race, naming
//                             MTE3_MTE2.
// The same kernels ordered as the hardware needs (PipeBarrier<PIPE_ALL>, SetFlag/WaitFlag of
// MTE3_MTE2 or through V) stay ok.
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_result;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

// z = x + y with x staged through z: each core copies its slice of x into z, `order`, loads z
// back and adds y.
std::string rt5_round_trip_kernel(const std::string& order) {
  return R"(#include "kernel_operator.h"

namespace {

struct StagedAdd {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf, zBuf, yBuf, sBuf;
  AscendC::GlobalTensor<DTYPE_X> lhs;
  AscendC::GlobalTensor<DTYPE_Y> rhs;
  AscendC::GlobalTensor<DTYPE_Z> sum;
  uint32_t n = 0;

  __aicore__ inline void Setup(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total) {
    n = total / AscendC::GetBlockNum();
    const uint32_t first = n * AscendC::GetBlockIdx();
    lhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x) + first, n);
    rhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y) + first, n);
    sum.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + first, n);
    pipe.InitBuffer(xBuf, n * sizeof(DTYPE_X));
    pipe.InitBuffer(zBuf, n * sizeof(DTYPE_Z));
    pipe.InitBuffer(yBuf, n * sizeof(DTYPE_Y));
    pipe.InitBuffer(sBuf, n * sizeof(DTYPE_Z));
  }

  __aicore__ inline void Run() {
    auto xs = xBuf.Get<DTYPE_X>();
    auto zs = zBuf.Get<DTYPE_Z>();
    auto ys = yBuf.Get<DTYPE_Y>();
    auto s = sBuf.Get<DTYPE_Z>();
    AscendC::DataCopy(xs, lhs, n);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);
    AscendC::DataCopy(sum, xs, n);
)" + order +
         R"(
    AscendC::DataCopy(zs, sum, n);
    AscendC::DataCopy(ys, rhs, n);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
    AscendC::Add(s, zs, ys, n);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
    AscendC::DataCopy(sum, s, n);
  }
};

}  // namespace

extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  StagedAdd op;
  op.Setup(x, y, z, tilingData.totalLength);
  op.Run();
}
)";
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("red team 5: a core loading back GM it stored, unordered, is a data race") {
    checker_fixture f;
    const std::string orders[] = {
        "    // stored, now load it back\n",
        "    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(1);\n"
        "    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(1);\n",
        "    AscendC::PipeBarrier<PIPE_MTE3>();\n",
    };
    for (const std::string& order : orders) {
      CAPTURE(order);
      const eval_result r =
          f.screened.evaluate(f.op, f.op.host_source, rt5_round_trip_kernel(order), {});
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "data_race");
      CHECK(r.message.find("DataCopy (MTE3") != std::string::npos);
      CHECK(r.message.find("writes GM bytes [0, 8192) of kernel argument 2 while DataCopy (MTE2") !=
            std::string::npos);
      CHECK(r.message.find("MTE3_MTE2") != std::string::npos);
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("red team 5: the GM round trip ordered as the hardware needs stays ok") {
    checker_fixture f;
    const std::string orders[] = {
        "    AscendC::PipeBarrier<PIPE_ALL>();\n",
        "    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);\n"
        "    AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0);\n",
        // Through V, as FreeTensor/AllocTensor of a VECOUT and then a VECIN buffer order it.
        "    AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(0);\n"
        "    AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);\n"
        "    AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);\n"
        "    AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);\n",
    };
    for (const std::string& order : orders) {
      CAPTURE(order);
      const eval_result r =
          f.screened.evaluate(f.op, f.op.host_source, rt5_round_trip_kernel(order), {});
      CHECK_MESSAGE(r.ok(), f.describe(r));
      f.check_honest_still_ok();
    }
  }
}
