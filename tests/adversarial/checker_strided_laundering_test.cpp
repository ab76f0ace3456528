// Issue 30, dataflow laundering through strides, with the static screen off (the trusted checker
// alone), against the honest tests/data/ops/add_tiled (z = x + y, float16, 8 cores): the kernel
// adds the even 32-byte blocks of its slice through a copy-in and a copy-out with a one-block
// gap, and the odd blocks in raw C++ straight into z, hoping the trace records the gapped
// copy-out as one span over its first and last byte, so that the raw half passes for traced
// work at half the price. The output replay holds each burst exactly: untraced_work, naming the
// first raw block. Followed by the honest candidate at its true latency.
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

// The common head: each core's slice of x, y and z as raw pointers and as global tensors.
const char* const kHead = R"(#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  const uint32_t perCore = tilingData.totalLength / GetBlockNum();
  const uint32_t first = perCore * GetBlockIdx();
  __gm__ half* a = reinterpret_cast<__gm__ half*>(x) + first;
  __gm__ half* b = reinterpret_cast<__gm__ half*>(y) + first;
  __gm__ half* c = reinterpret_cast<__gm__ half*>(z) + first;
  GlobalTensor<half> lhs; lhs.SetGlobalBuffer(a, perCore);
  GlobalTensor<half> rhs; rhs.SetGlobalBuffer(b, perCore);
  GlobalTensor<half> out; out.SetGlobalBuffer(c, perCore);
  TPipe pipe;
  TBuf<QuePosition::VECCALC> ba, bb, bc;
  pipe.InitBuffer(ba, perCore * sizeof(half));
  pipe.InitBuffer(bb, perCore * sizeof(half));
  pipe.InitBuffer(bc, perCore * sizeof(half));
  LocalTensor<half> ta = ba.Get<half>();
  LocalTensor<half> tb = bb.Get<half>();
  LocalTensor<half> tc = bc.Get<half>();
  const uint16_t pairs = static_cast<uint16_t>(perCore / 32);  // pairs of 16-element blocks
)";

const char* const kGappedCopyOut = R"(
  for (uint32_t i = 0; i < perCore; ++i) c[i] = a[i] + b[i];
  DataCopy(ta, lhs, DataCopyParams{pairs, 1, 1, 0});
  DataCopy(tb, rhs, DataCopyParams{pairs, 1, 1, 0});
  PipeBarrier<PIPE_ALL>();
  Add(tc, ta, tb, perCore / 2);
  PipeBarrier<PIPE_ALL>();
  DataCopy(out, tc, DataCopyParams{pairs, 1, 0, 1});
  PipeBarrier<PIPE_ALL>();
}
)";

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("raw work in the gaps of a gapped copy-out is untraced, not laundered") {
    checker_fixture f;
    const auto r =
        f.unscreened.evaluate(f.op, f.op.host_source, std::string(kHead) + kGappedCopyOut, {});
    CHECK_MESSAGE(r.status == eval_status::precision_error, checker_fixture::describe(r));
    CHECK(r.error_kind == "untraced_work");
    // The raw stores into the gaps fault where they happen (gm_guard.hpp), before the replay would
    // name the first byte the gapped copy did not write.
    CHECK(r.message.find(aopt::testing::raw_gm_refusal) != std::string::npos);
    f.check_honest_still_ok();
  }
}
