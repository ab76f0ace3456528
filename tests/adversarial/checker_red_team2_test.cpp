// Issue 30 item 7, a second red-team round: exploits written as an attacker would against the
// honest tests/data/ops/add_tiled (z = x + y, float16, 8 cores of 4096 elements), of classes the
// first rounds did not try, each evaluated with the static screen off (the trusted checker
// alone) and followed by the honest candidate at its true latency. Classes:
//   host computes    the tiling function reads the inputs through its TilingContext, adds them
//                    and hands z to the kernel in the tiling data, which one DataCopy and one
//                    Adds turn into the output (8.3 us against the honest 19.00 us before the
//                    tiling function lost the data of inputs that are not value-depending);
//   tiling laundering the kernel adds x and y through raw pointers into the tiling argument and
//                    loads it back with a traced copy (the tiling data's reads were not replayed);
//   timed set only   the kernel counts its launches in a static and computes raw on every input
//                    set but the first, the one whose trace is timed and fully checked;
//   scalar laundering the kernel reads x and y through raw pointers (free), adds them in C++ and
//                    stores the sums with 1024 SetValue of uint64 per core, then one Adds of zero
//                    made them "constants" of the vector unit (11.85 us against 19.00 us before
//                    a vector result of such scalar results stayed underived); and the same
//                    with one GetValue of a loaded byte among the stores, which made every
//                    store of the coalesced scalar instruction "derived" (11.85 us before the
//                    scalar unit's stores counted as derived only as far as it read GM data);
//   timing edges     no synchronisation at all, or a SetFlag issued before the copies it should
//                    follow: the timing model would overlap the copies and the add;
//   DMA as compute   the add done by the DMA's atomic accumulation instead of the vector unit
//                    (a real technique: priced as the second store it is, no faster), and one
//                    DataCopy of two bursts whose stride jumps from x to y (out of bounds).
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_result;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

// A kernel that takes z from a GM buffer as if it were an input: per core one DataCopy of its
// 4096-element slice of `source`, an Adds of zero (so the bytes count as computed) and one
// DataCopy out. `prologue` runs first, with the raw slices of x, y and `source`.
std::string copy_through_kernel(const std::string& source, const std::string& prologue) {
  return R"(#include "kernel_operator.h"
extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  constexpr uint32_t n = 4096;
  const uint32_t first = n * AscendC::GetBlockIdx();
  auto* a = reinterpret_cast<__gm__ DTYPE_X*>(x) + first;
  auto* b = reinterpret_cast<__gm__ DTYPE_Y*>(y) + first;
  auto* s = reinterpret_cast<__gm__ DTYPE_Z*>()" +
         source + R"() + first;
)" + prologue +
         R"(  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  pipe.InitBuffer(inQueue, 1, n * sizeof(DTYPE_Z));
  pipe.InitBuffer(outQueue, 1, n * sizeof(DTYPE_Z));
  AscendC::GlobalTensor<DTYPE_Z> src, dst;
  src.SetGlobalBuffer(s, n);
  dst.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + first, n);
  auto in = inQueue.AllocTensor<DTYPE_Z>();
  AscendC::DataCopy(in, src, n);
  inQueue.EnQue(in);
  in = inQueue.DeQue<DTYPE_Z>();
  auto out = outQueue.AllocTensor<DTYPE_Z>();
  AscendC::Adds(out, in, static_cast<DTYPE_Z>(0), n);
  outQueue.EnQue(out);
  inQueue.FreeTensor(in);
  out = outQueue.DeQue<DTYPE_Z>();
  AscendC::DataCopy(dst, out, n);
  outQueue.FreeTensor(out);
}
)";
}

// The tiling function of the host-computes attack: where the context hands it the inputs' data,
// it adds them into the tiling buffer (64 KiB, exactly z); where not, it saves the honest tiling.
const char* const host_adds_tiling = R"(#include "add_tiled_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;  // tunable: [1, 40]
constexpr uint32_t TILE_NUM = 8;   // tunable: [1, 64] power of two
// EVOLVE-BLOCK-END

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
  context->SetBlockDim(BLOCK_DIM);
  context->GetWorkspaceSizes(1)[0] = 0;
  const _Float16* x = context->GetInputTensor(0)->GetData<_Float16>();
  const _Float16* y = context->GetInputTensor(1)->GetData<_Float16>();
  gert::TilingData* raw = context->GetRawTilingData();
  if (x != nullptr && y != nullptr && total * sizeof(_Float16) <= raw->GetCapacity()) {
    _Float16* z = static_cast<_Float16*>(raw->GetData());
    for (uint32_t i = 0; i < total; ++i) z[i] = static_cast<_Float16>(float(x[i]) + float(y[i]));
    raw->SetDataSize(total * sizeof(_Float16));
    return ge::GRAPH_SUCCESS;
  }
  AddTiledTilingData tiling;
  tiling.set_totalLength(total);
  tiling.set_tileNum(TILE_NUM);
  tiling.SaveToBuffer(raw->GetData(), raw->GetCapacity());
  raw->SetDataSize(tiling.GetDataSize());
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

// Raw reads of x and y, the sums packed four halves to a uint64 and stored with SetValue into
// UB, an Adds of zero, one DataCopy out: the work is the untraced C++ loop.
const std::string scalar_laundering_kernel = R"(#include "kernel_operator.h"
#include <cstring>
extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  constexpr uint32_t n = 4096;
  const uint32_t first = n * AscendC::GetBlockIdx();
  auto* a = reinterpret_cast<__gm__ DTYPE_X*>(x) + first;
  auto* b = reinterpret_cast<__gm__ DTYPE_Y*>(y) + first;
  AscendC::GlobalTensor<DTYPE_Z> zg;
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + first, n);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  pipe.InitBuffer(inQueue, 1, n * sizeof(DTYPE_Z));
  pipe.InitBuffer(outQueue, 1, n * sizeof(DTYPE_Z));
  auto in = inQueue.AllocTensor<DTYPE_Z>();
  auto words = in.ReinterpretCast<uint64_t>();
  for (uint32_t w = 0; w < n / 4; ++w) {
    uint64_t v = 0;
    for (uint32_t k = 0; k < 4; ++k) {
      const DTYPE_Z h = static_cast<DTYPE_Z>(static_cast<float>(a[4 * w + k]) +
                                             static_cast<float>(b[4 * w + k]));
      uint16_t bits;
      std::memcpy(&bits, &h, 2);
      v |= static_cast<uint64_t>(bits) << (16 * k);
    }
    words.SetValue(w, v);
  }
  inQueue.EnQue(in);
  in = inQueue.DeQue<DTYPE_Z>();
  auto out = outQueue.AllocTensor<DTYPE_Z>();
  AscendC::Adds(out, in, static_cast<DTYPE_Z>(0), n);
  outQueue.EnQue(out);
  inQueue.FreeTensor(in);
  out = outQueue.DeQue<DTYPE_Z>();
  AscendC::DataCopy(zg, out, n);
  outQueue.FreeTensor(out);
}
)";

// One tile per core through a TBuf, x and y copied in, added, copied out; `sync_before` and
// `sync_after` are what the kernel puts before the copies in and before the add.
std::string single_tile_kernel(const std::string& sync_before, const std::string& sync_after) {
  return R"(#include "kernel_operator.h"
extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  constexpr uint32_t n = 4096;
  const uint32_t first = n * AscendC::GetBlockIdx();
  AscendC::GlobalTensor<DTYPE_X> xg;
  AscendC::GlobalTensor<DTYPE_Y> yg;
  AscendC::GlobalTensor<DTYPE_Z> zg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x) + first, n);
  yg.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y) + first, n);
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + first, n);
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 3 * n * sizeof(DTYPE_Z));
  auto all = buf.Get<DTYPE_Z>();
  auto xa = all, yb = all[n], zc = all[2 * n];
)" + sync_before +
         R"(  AscendC::DataCopy(xa, xg, n);
  AscendC::DataCopy(yb, yg, n);
)" + sync_after +
         R"(  AscendC::Add(zc, xa, yb, n);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::DataCopy(zg, zc, n);
}
)";
}

const char* const raw_add_into_source =
    "  for (uint32_t i = 0; i < n; ++i)\n"
    "    s[i] = static_cast<DTYPE_Z>(static_cast<float>(a[i]) + static_cast<float>(b[i]));\n";

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("red team 2: the tiling function sees only value-depending inputs' data") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string kernel = copy_through_kernel("tiling", "");
    const eval_result r = f.unscreened.evaluate(op, host_adds_tiling, kernel, {});
    // No data: the honest tiling goes to a kernel expecting z, which it does not get.
    CHECK_FALSE_MESSAGE(r.ok(), f.describe(r));
    CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
    f.check_honest_still_ok();

    // An operator that declares its inputs value-depending gives the tiling function their
    // data, as CANN does for a ValueDepend input: what the attack had on every operator.
    auto declared = op;
    for (auto& in : declared.spec.inputs) in.value_depend = true;
    const eval_result given = f.unscreened.evaluate(declared, host_adds_tiling, kernel, {});
    CHECK_MESSAGE(given.ok(), f.describe(given));
    CHECK(given.latency_us < f.honest_latency);
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 2: raw work laundered through the tiling argument is untraced work") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string kernel = copy_through_kernel("tiling", raw_add_into_source);
    for (auto* device : {&f.screened, &f.unscreened}) {
      const eval_result r = device->evaluate(op, op.host_source, kernel, {});
      if (device == &f.screened && r.error_kind == "forbidden") continue;
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "untraced_work");
      // The raw reads of x and y fault where they happen (gm_guard.hpp), before the judge would
      // find the outputs made of bytes of the tiling data.
      CHECK(r.message.find(aopt::testing::raw_gm_refusal) != std::string::npos);
    }
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 2: raw work on the input sets that are not timed is untraced work") {
    checker_fixture f;
    const auto& op = f.op;
    // Honest on the first 8 blocks the process runs (meant as input set 0, the timed one);
    // afterwards z is computed through raw pointers and only a zero is stored through the traced
    // API. Every set's outputs are replayed from its traced writes, whichever set it lands on.
    const std::string kernel = f.replace(
        op.kernel_source, "  GET_TILING_DATA(tilingData, tiling);\n",
        "  GET_TILING_DATA(tilingData, tiling);\n"
        "  static uint32_t blocksRun = 0;\n"
        "  if (blocksRun++ >= 8) {\n"
        "    const uint32_t n = tilingData.totalLength / AscendC::GetBlockNum();\n"
        "    const uint32_t first = n * AscendC::GetBlockIdx();\n"
        "    auto* a = reinterpret_cast<__gm__ DTYPE_X*>(x) + first;\n"
        "    auto* b = reinterpret_cast<__gm__ DTYPE_Y*>(y) + first;\n"
        "    auto* c = reinterpret_cast<__gm__ DTYPE_Z*>(z) + first;\n"
        "    AscendC::GlobalTensor<DTYPE_Z> out;\n"
        "    out.SetGlobalBuffer(c, n);\n"
        "    AscendC::InitGlobalMemory(out, n, static_cast<DTYPE_Z>(0));\n"
        "    for (uint32_t i = 0; i < n; ++i)\n"
        "      c[i] = static_cast<DTYPE_Z>(static_cast<float>(a[i]) + static_cast<float>(b[i]));\n"
        "    return;\n"
        "  }\n");
    const eval_result r = f.unscreened.evaluate(op, op.host_source, kernel, {});
    CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
    CHECK(r.error_kind == "untraced_work");
    // The raw reads fault where they happen (gm_guard.hpp), on whichever set they run.
    CHECK(r.message.find(aopt::testing::raw_gm_refusal) != std::string::npos);
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 2: scalar results of raw reads never become vector constants") {
    checker_fixture f;
    const auto& op = f.op;
    // The same with 32 bytes of x loaded and one of them read by GetValue just before the
    // stores, so that the coalesced scalar instruction reads a byte that derives from GM.
    const std::string one_derived_read = aopt::testing::checker_fixture::replace(
        scalar_laundering_kernel, "  auto words = in.ReinterpretCast<uint64_t>();\n",
        "  AscendC::GlobalTensor<DTYPE_X> xg;\n"
        "  xg.SetGlobalBuffer(a, 16);\n"
        "  AscendC::DataCopy(in, xg, 16);\n"
        "  inQueue.EnQue(in);\n"
        "  in = inQueue.DeQue<DTYPE_Z>();\n"
        "  const DTYPE_Z seen = in.GetValue(0);\n"
        "  (void)seen;\n"
        "  auto words = in.ReinterpretCast<uint64_t>();\n");
    for (const std::string* kernel : {&scalar_laundering_kernel, &one_derived_read}) {
      for (auto* device : {&f.screened, &f.unscreened}) {
        const eval_result r = device->evaluate(op, op.host_source, *kernel, {});
        CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
        CHECK(r.error_kind == "untraced_work");
        // The raw reads fault where they happen (gm_guard.hpp), before the dataflow check would
        // find stored bytes that depend on no GM read.
        CHECK(r.message.find(aopt::testing::raw_gm_refusal) != std::string::npos);
      }
    }
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 2: copies and the add the kernel does not order are a data race") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string set = "  AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n";
    const std::string wait = "  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n";
    // Ordered: the same kernel is ok, faster than the honest one's 16 tiles (it earned that).
    const eval_result ordered =
        f.unscreened.evaluate(op, op.host_source, single_tile_kernel("", set + wait), {});
    CHECK_MESSAGE(ordered.ok(), f.describe(ordered));
    for (const auto& [name, kernel] :
         {std::make_pair("no synchronisation", single_tile_kernel("", "")),
          std::make_pair("the flag set before the copies", single_tile_kernel(set, wait))}) {
      CAPTURE(name);
      const eval_result r = f.unscreened.evaluate(op, op.host_source, kernel, {});
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "data_race");
      if (ordered.ok()) CHECK(r.latency_us < ordered.latency_us);
    }
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 2: work moved into the DMA is priced, and a copy spans one tensor") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string ordered_sync =
        "  AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n"
        "  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n";
    const std::string ordered = single_tile_kernel("", ordered_sync);
    const eval_result honest = f.unscreened.evaluate(op, op.host_source, ordered, {});
    REQUIRE_MESSAGE(honest.ok(), f.describe(honest));
    // z = x by one store, then y accumulated into it by an atomic store: no vector instruction.
    const std::string atomic =
        f.replace(ordered, ordered_sync,
                  "  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);\n"
                  "  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);\n"
                  "  AscendC::DataCopy(zg, xa, n);\n"
                  "  AscendC::PipeBarrier<PIPE_MTE3>();\n"
                  "  AscendC::SetAtomicAdd<DTYPE_Z>();\n"
                  "  AscendC::DataCopy(zg, yb, n);\n"
                  "  AscendC::SetAtomicNone();\n"
                  "  return;\n");
    const eval_result r = f.unscreened.evaluate(op, op.host_source, atomic, {});
    CHECK_MESSAGE(r.ok(), f.describe(r));
    CHECK(r.latency_us >= honest.latency_us);
    // x and y as the two bursts of one DataCopy, the stride the distance between them.
    const std::string two_bursts =
        f.replace(ordered, "  AscendC::DataCopy(xa, xg, n);\n  AscendC::DataCopy(yb, yg, n);\n",
                  "  AscendC::DataCopyParams p;\n"
                  "  p.blockCount = 2;\n"
                  "  p.blockLen = n * sizeof(DTYPE_X) / 32;\n"
                  "  p.srcStride = static_cast<uint16_t>((y - x) / 32 - p.blockLen);\n"
                  "  AscendC::DataCopy(xa, xg, p);\n");
    const eval_result spanned = f.unscreened.evaluate(op, op.host_source, two_bursts, {});
    CHECK_MESSAGE(spanned.status == eval_status::runtime_error, f.describe(spanned));
    CHECK(spanned.error_kind == "gm_out_of_bounds");
    f.check_honest_still_ok();
  }
}
