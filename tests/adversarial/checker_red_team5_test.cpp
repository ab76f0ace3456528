// Issue 30 item 7, a fifth red-team round: GM data races, written as an attacker would against
// the honest tests/data/ops/add_tiled (z = x + y, float16, 8 cores), each followed by the honest
// candidate at its true latency. The simulator runs a core's instructions in program order and
// its blocks one after another, so a kernel that hands data through GM without the
// synchronisation the hardware needs computes the right values here and may not there. Classes:
//   GM round trip in a core   each core stores its slice of x into z on MTE3 and loads z back on
//                             MTE2 with nothing ordering the load after the store, or with what
//                             does not: a flag of the other direction (MTE2_MTE3), a barrier of
//                             one pipe (PipeBarrier<PIPE_MTE3>). All three scored ok at 9.30 us,
//                             where the same kernel ordered by PipeBarrier<PIPE_ALL> or the
//                             MTE3_MTE2 flag takes 9.82 us: the load overlapped the store it
//                             reads. The hazard detector now orders the GM accesses of the DMA
//                             pipes as it orders UB ones (hazard_detector.hpp): data_race, naming
//                             MTE3_MTE2;
//   GM hand-over between cores  each core stages y into the slice of z that the next core adds x
//                             to (core 0 also its own), and the next core loads it with nothing
//                             between, with a SyncAll before the stores instead, or with IBWait
//                             for block 0's flag whoever staged its slice. The blocks run one
//                             after another here, so each found its slice staged: ok at 10.85,
//                             11.12 and 11.39 us (10.85 us against 11.12 us with the SyncAll in
//                             its place). Now data_race between cores (gm_cross_core_race.hpp),
//                             naming both blocks.
// The same kernels ordered as the hardware needs (PipeBarrier<PIPE_ALL>, SetFlag/WaitFlag of
// MTE3_MTE2 or through V, SyncAll, IBSet/IBWait of the block that staged) stay ok.
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

// z = x + y in two phases: phase 1 stages y into z, each core the slice of the next (core 0 also
// its own); `between`; phase 2 each core loads its slice of z back and adds x. `before` opens the
// kernel. The flags of IBSet/IBWait live in the workspace (rt5_workspace_tiling).
std::string rt5_neighbour_kernel(const std::string& before, const std::string& between) {
  return R"(#include "kernel_operator.h"

namespace {

struct NeighbourAdd {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> stageBuf, zBuf, xBuf, sBuf, flagBuf;
  AscendC::GlobalTensor<DTYPE_X> lhs;
  AscendC::GlobalTensor<DTYPE_Y> rhs;
  AscendC::GlobalTensor<DTYPE_Z> sum;
  AscendC::GlobalTensor<int32_t> flags;
  uint32_t n = 0;
  uint32_t me = 0;
  uint32_t blocks = 0;

  __aicore__ inline void Setup(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                               uint32_t total) {
    blocks = AscendC::GetBlockNum();
    me = AscendC::GetBlockIdx();
    n = total / blocks;
    lhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x), total);
    rhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y), total);
    sum.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z), total);
    flags.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(AscendC::GetUserWorkspace(workspace)),
                          blocks * 8);
    pipe.InitBuffer(stageBuf, n * sizeof(DTYPE_Y));
    pipe.InitBuffer(zBuf, n * sizeof(DTYPE_Z));
    pipe.InitBuffer(xBuf, n * sizeof(DTYPE_X));
    pipe.InitBuffer(sBuf, n * sizeof(DTYPE_Z));
    pipe.InitBuffer(flagBuf, 32);
  }

  __aicore__ inline void Stage(uint32_t slice) {
    auto ys = stageBuf.Get<DTYPE_Y>();
    AscendC::DataCopy(ys, rhs[slice * n], n);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);
    AscendC::DataCopy(sum[slice * n], ys, n);
    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0);
  }

  __aicore__ inline void Run() {
)" + before +
         R"(
    if (me == 0) Stage(0);
    if (me + 1 < blocks) Stage(me + 1);
)" + between +
         R"(
    auto zs = zBuf.Get<DTYPE_Z>();
    auto xs = xBuf.Get<DTYPE_X>();
    auto s = sBuf.Get<DTYPE_Z>();
    AscendC::DataCopy(zs, sum[me * n], n);
    AscendC::DataCopy(xs, lhs[me * n], n);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
    AscendC::Add(s, zs, xs, n);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
    AscendC::DataCopy(sum[me * n], s, n);
  }
};

}  // namespace

extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  NeighbourAdd op;
  op.Setup(x, y, z, workspace, tilingData.totalLength);
  op.Run();
}
)";
}

// IBSet after the staging, and IBWait for the flag of block `waited` before phase 2.
std::string rt5_flags(const std::string& waited) {
  return "    auto flag = flagBuf.Get<int32_t>();\n"
         "    AscendC::IBSet(flags, flag, static_cast<int32_t>(me), 0);\n"
         "    if (me > 0) AscendC::IBWait(flags, flag, " +
         waited + ", 0);\n";
}

// add_tiled's tiling with a workspace for the flags: 32 bytes per core (eventID 0).
std::string rt5_workspace_tiling(const checker_fixture& f) {
  return checker_fixture::replace(f.op.host_source, "context->GetWorkspaceSizes(1)[0] = 0;",
                                  "context->GetWorkspaceSizes(1)[0] = BLOCK_DIM * 32;");
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

  TEST_CASE("red team 5: a block loading GM another block stored, unsynchronised, is a data race") {
    checker_fixture f;
    const std::string tiling = rt5_workspace_tiling(f);
    struct variant {
      std::string before;
      std::string between;
      std::string first;  // the block whose store the message names
      std::string second;
    };
    const variant variants[] = {
        {"", "", "block 0's", "block 1's"},
        {"    AscendC::SyncAll();\n", "", "block 0's", "block 1's"},
        // Block 1 finds its slice ordered (block 0 staged it); block 2's was staged by block 1.
        {"", rt5_flags("0"), "block 1's", "block 2's"},
    };
    for (const variant& v : variants) {
      CAPTURE(v.before);
      CAPTURE(v.between);
      const eval_result r =
          f.screened.evaluate(f.op, tiling, rt5_neighbour_kernel(v.before, v.between), {});
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "data_race");
      CHECK(r.message.find("data race between cores: " + v.first + " DataCopy (MTE3") !=
            std::string::npos);
      CHECK(r.message.find("of kernel argument 2 and " + v.second + " DataCopy (MTE2") !=
            std::string::npos);
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("red team 5: the GM hand-over between blocks synchronised as documented stays ok") {
    checker_fixture f;
    const std::string tiling = rt5_workspace_tiling(f);
    const std::string betweens[] = {"    AscendC::SyncAll();\n",
                                    rt5_flags("static_cast<int32_t>(me - 1)")};
    for (const std::string& between : betweens) {
      CAPTURE(between);
      const eval_result r =
          f.screened.evaluate(f.op, tiling, rt5_neighbour_kernel("", between), {});
      CHECK_MESSAGE(r.ok(), f.describe(r));
      f.check_honest_still_ok();
    }
  }
}
