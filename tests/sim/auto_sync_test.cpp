// CANN's compiler auto-sync (auto_sync.hpp): kernels that mix scalar and vector/MTE work on the
// same UB data without flags are ordered when the profile has auto_sync on (and the inserted
// waits cost time), are races when it is off, and a kernel that drops a queue's EnQue/DeQue
// stays a race either way. The kernels are written the way public samples write them.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "npu/sim/runtime/auto_sync.hpp"
#include "npu/sim/runtime/hazard_detector.hpp"
#include "npu/sim/runtime/timing_model.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

constexpr uint32_t tile = 256;
constexpr uint32_t tiles = 4;
constexpr uint32_t total = tile * tiles;

// y = x * max(x[0], 0) per tile: the scale is read back from UB by the scalar unit right after
// the copy-in is dequeued (MTE2 -> S) and a vector result is read with GetValue (V -> S).
class KernelScaleByFirst {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
    xGm_.SetGlobalBuffer((__gm__ float*)x, total);
    yGm_.SetGlobalBuffer((__gm__ float*)y, total);
    pipe_.InitBuffer(inQueueX_, 2, tile * sizeof(float));
    pipe_.InitBuffer(outQueueY_, 2, tile * sizeof(float));
    pipe_.InitBuffer(tmpBuf_, tile * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles; ++i) {
      LocalTensor<float> x = inQueueX_.AllocTensor<float>();
      DataCopy(x, xGm_[i * tile], tile);
      inQueueX_.EnQue(x);
      x = inQueueX_.DeQue<float>();
      LocalTensor<float> tmp = tmpBuf_.Get<float>();
      Relu(tmp, x, tile);
      const float scale = tmp.GetValue(0);  // a vector result read by the scalar unit
      LocalTensor<float> y = outQueueY_.AllocTensor<float>();
      Muls(y, x, scale, tile);
      outQueueY_.EnQue(y);
      inQueueX_.FreeTensor(x);
      y = outQueueY_.DeQue<float>();
      DataCopy(yGm_[i * tile], y, tile);
      outQueueY_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 2> inQueueX_;
  TQue<QuePosition::VECOUT, 2> outQueueY_;
  TBuf<TPosition::VECCALC> tmpBuf_;
  GlobalTensor<float> xGm_, yGm_;
};

// y[0, n) = x + 1 where n is computed by the scalar unit from a header element of x that it
// reads after the copy-in (MTE2 -> S), and the rest of y is written by SetValue (S -> MTE3).
void scalar_length_kernel(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> inQueue;
  TQue<QuePosition::VECOUT, 1> outQueue;
  pipe.InitBuffer(inQueue, 1, tile * sizeof(float));
  pipe.InitBuffer(outQueue, 1, tile * sizeof(float));
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, tile);
  yGm.SetGlobalBuffer((__gm__ float*)y, tile);
  LocalTensor<float> xl = inQueue.AllocTensor<float>();
  DataCopy(xl, xGm, tile);
  inQueue.EnQue(xl);
  xl = inQueue.DeQue<float>();
  const int32_t n = static_cast<int32_t>(xl.GetValue(0)) / 8 * 8;  // header: element count
  LocalTensor<float> yl = outQueue.AllocTensor<float>();
  Adds(yl, xl, 1.0f, n);
  for (int32_t i = n; i < static_cast<int32_t>(tile); ++i) yl.SetValue(i, 0.0f);
  outQueue.EnQue(yl);
  inQueue.FreeTensor(xl);
  yl = outQueue.DeQue<float>();
  DataCopy(yGm, yl, tile);
  outQueue.FreeTensor(yl);
}

// The copy-in read by a vector op without EnQue/DeQue: the MTE2 -> V edge no compiler inserts.
void dropped_queue_kernel(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> inQueue;
  TQue<QuePosition::VECOUT, 1> outQueue;
  pipe.InitBuffer(inQueue, 1, tile * sizeof(float));
  pipe.InitBuffer(outQueue, 1, tile * sizeof(float));
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, tile);
  yGm.SetGlobalBuffer((__gm__ float*)y, tile);
  LocalTensor<float> xl = inQueue.AllocTensor<float>();
  DataCopy(xl, xGm, tile);  // no EnQue/DeQue before the vector op reads it
  LocalTensor<float> yl = outQueue.AllocTensor<float>();
  Adds(yl, xl, 1.0f, tile);
  outQueue.EnQue(yl);
  inQueue.FreeTensor(xl);
  yl = outQueue.DeQue<float>();
  DataCopy(yGm, yl, tile);
  outQueue.FreeTensor(yl);
}

// A scatter-add inner loop as DrivingSDK's scatter_add writes it: two copies in (indices, then
// rows), then per index a scalar read of the index and an atomic copy of a row out. The scalar
// read waits for MTE2 through auto-sync, and the SetFlag the compiler issues there follows the
// row copy too (MTE2 runs in order), so the row copy out, issued by the scalar unit after the
// wait, is ordered after the row copy in. `read_index` false leaves the scalar unit nothing to
// wait for: the same copies are then a race.
void scatter_rows_kernel(GM_ADDR x, GM_ADDR y, bool read_index) {
  GlobalTensor<float> xGm;
  GlobalTensor<float> yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, tile);
  yGm.SetGlobalBuffer((__gm__ float*)y, tile);
  TPipe pipe;
  TBuf<TPosition::VECCALC> indexBuf;
  TBuf<TPosition::VECCALC> rowBuf;
  pipe.InitBuffer(indexBuf, 32);
  pipe.InitBuffer(rowBuf, tile * sizeof(float));
  LocalTensor<float> index = indexBuf.Get<float>();
  LocalTensor<float> rows = rowBuf.Get<float>();
  DataCopy(index, xGm, 8);
  DataCopy(rows, xGm, tile);
  const uint32_t at = read_index ? static_cast<uint32_t>(index.GetValue(0)) % 2 : 0;
  DataCopy(yGm[at * 8], rows[at * 8], 8);
}

struct outcome {
  core_trace trace;
  std::vector<float> y;
};

outcome run_kernel(bool auto_sync, const std::function<void(GM_ADDR, GM_ADDR)>& kernel,
                   const std::vector<float>& x_values) {
  shim_run run;
  run.launch.hw.auto_sync = auto_sync;
  float* x = run.gm<float>("x", x_values.size());
  float* y = run.gm<float>("y", x_values.size());
  std::copy(x_values.begin(), x_values.end(), x);
  outcome o;
  o.trace = run.run([&] { kernel(reinterpret_cast<GM_ADDR>(x), reinterpret_cast<GM_ADDR>(y)); });
  o.y.assign(y, y + x_values.size());
  return o;
}

std::vector<float> ramp(uint32_t n, float start, float step) {
  std::vector<float> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i % 97);
  return v;
}

void scale_by_first(GM_ADDR x, GM_ADDR y) {
  KernelScaleByFirst op;
  op.Init(x, y);
  op.Process();
}

TEST_SUITE("sim") {
  TEST_CASE("GetValue after a vector op, in a loop that alternates them, is ordered by auto-sync") {
    for (float start : {-1.0f, 0.5f, 2.0f}) {  // three input sets
      const std::vector<float> x = ramp(total, start, 0.01f);
      const outcome on = run_kernel(true, scale_by_first, x);
      for (uint32_t i = 0; i < total; ++i) {
        const float scale = std::max(x[i / tile * tile], 0.0f);
        REQUIRE(on.y[i] == doctest::Approx(x[i] * scale));
      }
      const auto race = find_first_race(on.trace);
      INFO((race ? race->message : std::string()));
      CHECK_FALSE(race.has_value());

      const outcome off = run_kernel(false, scale_by_first, x);
      const auto unsynced = find_first_race(off.trace);
      REQUIRE(unsynced.has_value());
      INFO(unsynced->message);
      // Names both pipes, both instructions and their lines, and the synchronisation.
      CHECK(unsynced->message.find("Relu (V, #") != std::string::npos);
      CHECK(unsynced->message.find("GetValue (S, #") != std::string::npos);
      CHECK(unsynced->message.find(", line ") != std::string::npos);
      CHECK(unsynced->message.find("SetFlag/WaitFlag<HardEvent::V_S>") != std::string::npos);
      CHECK(unsynced->message.find("device.auto_sync") != std::string::npos);
    }
  }

  TEST_CASE("a scalar-computed length fed to a vector op is ordered by auto-sync, not without") {
    for (float count : {64.0f, 128.0f, 200.0f}) {
      std::vector<float> x = ramp(tile, 0.25f, 0.5f);
      x[0] = count;
      const outcome on = run_kernel(true, scalar_length_kernel, x);
      const auto n = static_cast<uint32_t>(count) / 8 * 8;
      for (uint32_t i = 0; i < tile; ++i) REQUIRE(on.y[i] == (i < n ? x[i] + 1.0f : 0.0f));
      CHECK_FALSE(find_first_race(on.trace).has_value());
      const auto race = find_first_race(run_kernel(false, scalar_length_kernel, x).trace);
      REQUIRE(race.has_value());
      INFO(race->message);
      CHECK(race->message.find("(MTE2, #") != std::string::npos);
      CHECK(race->message.find("(S, #") != std::string::npos);
    }
  }

  TEST_CASE("a scalar wait for MTE2 orders every earlier MTE2 copy, not only the one it reads") {
    const std::vector<float> x = ramp(tile, 0.0f, 1.0f);
    const outcome on = run_kernel(
        true, [](GM_ADDR a, GM_ADDR b) { scatter_rows_kernel(a, b, true); }, x);
    const auto race = find_first_race(on.trace);
    INFO((race ? race->message : std::string()));
    CHECK_FALSE(race.has_value());
    // The edge goes to the row copy (#1), the later of the two copies in.
    bool waits_for_rows = false;
    for (const instruction& in : on.trace.instructions) {
      if (in.on == pipe::s && !in.auto_deps.empty()) waits_for_rows |= in.auto_deps[0] == 1;
    }
    CHECK(waits_for_rows);

    const outcome unread = run_kernel(
        true, [](GM_ADDR a, GM_ADDR b) { scatter_rows_kernel(a, b, false); }, x);
    const auto unsynced = find_first_race(unread.trace);
    REQUIRE(unsynced.has_value());
    CHECK(unsynced->message.find("(MTE2, #1") != std::string::npos);
    CHECK(unsynced->message.find("(MTE3, #") != std::string::npos);
  }

  TEST_CASE("a dropped EnQue/DeQue is a data race with auto-sync on and off") {
    const std::vector<float> x = ramp(tile, 1.0f, 0.5f);
    for (bool auto_sync : {true, false}) {
      const auto race = find_first_race(run_kernel(auto_sync, dropped_queue_kernel, x).trace);
      REQUIRE(race.has_value());
      INFO(race->message);
      CHECK(race->message.find("DataCopy (MTE2, #") != std::string::npos);
      CHECK(race->message.find("Adds (V, #") != std::string::npos);
      CHECK(race->message.find("EnQue/DeQue on a VECIN queue") != std::string::npos);
    }
  }

  TEST_CASE("the waits auto-sync inserts cost time and show in the timing") {
    const std::vector<float> x = ramp(total, 0.5f, 0.01f);
    const outcome on = run_kernel(true, scale_by_first, x);
    core_trace without = on.trace;
    clear_auto_sync(without);
    const hw_profile hw;
    const core_timing synced = replay_core(on.trace, hw, 1);
    const core_timing unsynced = replay_core(without, hw, 1);
    CHECK(synced.auto_sync_wait_cycles > 0);
    CHECK(unsynced.auto_sync_wait_cycles == 0);
    CHECK(synced.total_cycles > unsynced.total_cycles);
    CHECK(synced.flag_wait_cycles >= synced.auto_sync_wait_cycles - 1e-9);
  }

  TEST_CASE("insert_auto_sync replaces earlier edges and leaves vector-only traces alone") {
    const std::vector<float> x = ramp(total, 0.5f, 0.01f);
    outcome on = run_kernel(true, scale_by_first, x);
    size_t edges = 0;
    for (const instruction& in : on.trace.instructions) edges += in.auto_deps.size();
    CHECK(edges > 0);
    insert_auto_sync(on.trace);  // idempotent: recomputed, not appended
    size_t again = 0;
    for (const instruction& in : on.trace.instructions) again += in.auto_deps.size();
    CHECK(again == edges);

    const outcome queued = run_kernel(true, dropped_queue_kernel, ramp(tile, 1.0f, 0.5f));
    for (const instruction& in : queued.trace.instructions) CHECK(in.auto_deps.empty());
  }
}

}  // namespace
}  // namespace aopt::sim
