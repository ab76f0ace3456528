// The timing laws of issue 2 on real AscendC kernels: small operators written against the shim
// (kernel_operator.h), run in-process on simulated cores, their recorded traces replayed by the
// timing model. Each comparison changes one thing in an otherwise identical kernel.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "kernel_operator.h"
#include "npu/sim/runtime/core_context.hpp"
#include "npu/sim/runtime/hazard_detector.hpp"
#include "npu/sim/runtime/timing_model.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;

constexpr uint32_t tile_length = 4096;  // floats per tile: 16 KiB per DataCopy

struct kernel_options {
  uint32_t total_length = 16 * tile_length;
  bool barrier_each_tile = false;  // PipeBarrier<PIPE_ALL> at the end of each loop iteration
  bool scalar_loop = false;        // per-element GetValue/SetValue instead of Add
};

// z = x + y, tiled, each core taking a contiguous slice: the canonical AscendC elementwise
// kernel, with the queue depth as the only template parameter.
template <int32_t buffer_num>
class kernel_add {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const kernel_options& o) {
    options_ = o;
    const uint32_t block_length = o.total_length / static_cast<uint32_t>(GetBlockNum());
    tile_num_ = block_length / tile_length;
    const uint64_t offset =
        static_cast<uint64_t>(block_length) * static_cast<uint64_t>(GetBlockIdx());
    x_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + offset, block_length);
    y_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + offset, block_length);
    z_gm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + offset, block_length);
    pipe_.InitBuffer(in_x_, buffer_num, tile_length * sizeof(float));
    pipe_.InitBuffer(in_y_, buffer_num, tile_length * sizeof(float));
    pipe_.InitBuffer(out_z_, buffer_num, tile_length * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tile_num_; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
      if (options_.barrier_each_tile) PipeBarrier<PIPE_ALL>();
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i) {
    LocalTensor<float> x = in_x_.template AllocTensor<float>();
    LocalTensor<float> y = in_y_.template AllocTensor<float>();
    DataCopy(x, x_gm_[i * tile_length], tile_length);
    DataCopy(y, y_gm_[i * tile_length], tile_length);
    in_x_.EnQue(x);
    in_y_.EnQue(y);
  }

  __aicore__ inline void Compute() {
    LocalTensor<float> x = in_x_.template DeQue<float>();
    LocalTensor<float> y = in_y_.template DeQue<float>();
    LocalTensor<float> z = out_z_.template AllocTensor<float>();
    if (options_.scalar_loop) {
      // The scalar unit touches UB directly, so it synchronises with the DMA pipes explicitly.
      SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
      SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
      WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
      for (uint32_t k = 0; k < tile_length; ++k) z.SetValue(k, x.GetValue(k) + y.GetValue(k));
      SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
      SetFlag<HardEvent::S_MTE2>(EVENT_ID0);
      WaitFlag<HardEvent::S_MTE2>(EVENT_ID0);
    } else {
      Add(z, x, y, tile_length);
    }
    out_z_.EnQue(z);
    in_x_.FreeTensor(x);
    in_y_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(uint32_t i) {
    LocalTensor<float> z = out_z_.template DeQue<float>();
    DataCopy(z_gm_[i * tile_length], z, tile_length);
    out_z_.FreeTensor(z);
  }

  kernel_options options_;
  uint32_t tile_num_ = 0;
  TPipe pipe_;
  TQue<QuePosition::VECIN, buffer_num> in_x_, in_y_;
  TQue<QuePosition::VECOUT, buffer_num> out_z_;
  GlobalTensor<float> x_gm_, y_gm_, z_gm_;
};

template <int32_t buffer_num>
__global__ __aicore__ void add_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, const kernel_options& o) {
  kernel_add<buffer_num> op;
  op.Init(x, y, z, o);
  op.Process();
}

struct kernel_run {
  kernel_timing timing;
  std::vector<core_timing> cores;
  std::vector<core_trace> traces;
  bool sums_correct = true;
};

// Runs the kernel block by block on simulated cores, then replays the traces.
template <int32_t buffer_num>
kernel_run run_add(const kernel_options& o, uint32_t block_num = 1) {
  // GM starts 512-byte aligned, as the driver allocates it: the timing model charges unaligned
  // DMA, so a heap-dependent alignment would make the comparison depend on test order.
  constexpr uint32_t pad = 512 / sizeof(float);
  std::vector<float> x_mem(o.total_length + pad), y_mem(o.total_length + pad),
      z_mem(o.total_length + pad, -1.0f);
  auto aligned = [](std::vector<float>& v) {
    const auto p = (reinterpret_cast<uintptr_t>(v.data()) + 511) & ~uintptr_t{511};
    return reinterpret_cast<float*>(p);
  };
  float* x = aligned(x_mem);
  float* y = aligned(y_mem);
  float* z = aligned(z_mem);
  for (uint32_t i = 0; i < o.total_length; ++i) {
    x[i] = static_cast<float>(i % 97);
    y[i] = static_cast<float>(i % 13) * 0.5f;
  }
  const uint64_t bytes = uint64_t{o.total_length} * sizeof(float);
  kernel_launch launch;
  launch.block_num = block_num;
  launch.gm = {{"x", reinterpret_cast<uint8_t*>(x), bytes},
               {"y", reinterpret_cast<uint8_t*>(y), bytes},
               {"z", reinterpret_cast<uint8_t*>(z), bytes}};
  kernel_run run;
  for (uint32_t b = 0; b < block_num; ++b) {
    core_context core(launch, b);
    {
      scoped_core running(core);
      add_kernel<buffer_num>(reinterpret_cast<GM_ADDR>(x), reinterpret_cast<GM_ADDR>(y),
                             reinterpret_cast<GM_ADDR>(z), o);
    }
    core.finish();
    run.traces.push_back(core.take_trace());
  }
  for (uint32_t i = 0; i < o.total_length; ++i)
    run.sums_correct = run.sums_correct && z[i] == x[i] + y[i];
  for (const core_trace& t : run.traces) run.cores.push_back(replay_core(t, launch.hw, block_num));
  run.timing = combine_cores(run.cores, run.traces, launch.hw);
  return run;
}

bool race_free(const kernel_run& run) {
  for (const core_trace& t : run.traces)
    if (auto race = find_first_race(t)) {
      MESSAGE(race->message);
      return false;
    }
  return true;
}

TEST_SUITE("sim") {
  TEST_CASE("an AscendC Add kernel with BUFFER_NUM=2 is faster than with BUFFER_NUM=1") {
    const kernel_options o;
    const kernel_run single = run_add<1>(o);
    const kernel_run twice = run_add<2>(o);
    CHECK(single.sums_correct);
    CHECK(twice.sums_correct);
    CHECK(race_free(single));
    CHECK(race_free(twice));
    MESSAGE("BUFFER_NUM=1 " << single.timing.latency_us << " us, BUFFER_NUM=2 "
                            << twice.timing.latency_us << " us");
    CHECK(twice.timing.latency_us < single.timing.latency_us);
  }

  TEST_CASE("an AscendC GetValue/SetValue loop is far slower than the Add it replaces") {
    kernel_options scalar;
    scalar.scalar_loop = true;
    const kernel_run vector_run = run_add<1>(kernel_options{});
    const kernel_run scalar_run = run_add<1>(scalar);
    CHECK(scalar_run.sums_correct);
    CHECK(race_free(scalar_run));
    MESSAGE("scalar loop " << scalar_run.timing.latency_us << " us, Add "
                           << vector_run.timing.latency_us << " us");
    CHECK(scalar_run.cores[0].total_cycles > 10 * vector_run.cores[0].total_cycles);
    CHECK(scalar_run.cores[0].scalar_accesses == 3ull * scalar.total_length);
  }

  TEST_CASE("an AscendC kernel with PipeBarrier<PIPE_ALL> in its loop is slower") {
    kernel_options barrier;
    barrier.barrier_each_tile = true;
    const kernel_run plain = run_add<2>(kernel_options{});
    const kernel_run with_barrier = run_add<2>(barrier);
    CHECK(with_barrier.sums_correct);
    CHECK(race_free(with_barrier));
    MESSAGE("without barrier " << plain.timing.latency_us << " us, with "
                               << with_barrier.timing.latency_us << " us");
    CHECK(with_barrier.cores[0].total_cycles > 1.2 * plain.cores[0].total_cycles);
    CHECK(with_barrier.cores[0].barrier_stall_cycles > 0);
  }

  TEST_CASE("an AscendC kernel on more cores is faster, and the same run always times the same") {
    kernel_options o;
    o.total_length = 64 * tile_length;
    const kernel_run one = run_add<2>(o, 1);
    const kernel_run four = run_add<2>(o, 4);
    const kernel_run four_again = run_add<2>(o, 4);
    CHECK(four.sums_correct);
    CHECK(four.timing.latency_us < one.timing.latency_us);
    CHECK(four.timing.latency_us == four_again.timing.latency_us);
    CHECK(four.cores[3].total_cycles == four_again.cores[3].total_cycles);
  }
}

}  // namespace
}  // namespace aopt::sim
