// The laws of issue 2 that the timing model must obey, on synthetic traces shaped like the
// kernels the shim records (everything else equal between the two sides of each comparison).
#include <doctest/doctest.h>

#include <vector>

#include "npu/sim/runtime/timing_model.hpp"
#include "sim/synthetic_trace.hpp"

namespace aopt::sim {
namespace {

using testing::elementwise_options;
using testing::tiled_add_trace;
using testing::trace_builder;

double cycles(const core_trace& trace, uint32_t active_cores = 1) {
  return replay_core(trace, hw_profile{}, active_cores).total_cycles;
}

// The same elementwise kernel over `total_tiles` tiles split evenly across `cores` cores.
kernel_timing run_on_cores(uint32_t cores, uint32_t total_tiles) {
  const hw_profile hw;
  std::vector<core_trace> traces;
  std::vector<core_timing> timings;
  for (uint32_t c = 0; c < cores; ++c) {
    elementwise_options o;
    o.tiles = total_tiles / cores + (c < total_tiles % cores ? 1 : 0);
    traces.push_back(tiled_add_trace(o));
    traces.back().block_idx = c;
    timings.push_back(replay_core(traces.back(), hw, cores));
  }
  return combine_cores(timings, traces, hw);
}

TEST_SUITE("sim") {
  TEST_CASE(
      "double buffering (BUFFER_NUM=2) is faster than single buffering on a tiled elementwise "
      "kernel") {
    elementwise_options single;
    single.buffer_num = 1;
    elementwise_options twice = single;
    twice.buffer_num = 2;
    CHECK(cycles(tiled_add_trace(twice)) < cycles(tiled_add_trace(single)));

    // With enough vector work per tile to matter, overlapping it with the copies pays a lot.
    single.vector_ops = twice.vector_ops = 16;
    single.vector_class = twice.vector_class = op_class::vec_div_transcendental;
    const double one = cycles(tiled_add_trace(single));
    const double two = cycles(tiled_add_trace(twice));
    MESSAGE("compute-heavy tiled kernel: BUFFER_NUM=1 " << one << " cycles, BUFFER_NUM=2 " << two);
    CHECK(two < 0.8 * one);
  }

  TEST_CASE("a per-element GetValue/SetValue loop is far slower than the equivalent vector op") {
    elementwise_options vector_kernel;
    vector_kernel.buffer_num = 1;
    elementwise_options scalar_kernel = vector_kernel;
    scalar_kernel.scalar_compute = true;
    const double v = cycles(tiled_add_trace(vector_kernel));
    const double s = cycles(tiled_add_trace(scalar_kernel));
    MESSAGE("scalar loop " << s << " cycles, vector op " << v);
    CHECK(s > 10 * v);
  }

  TEST_CASE("PipeBarrier<PIPE_ALL> in the loop slows a double-buffered kernel down") {
    elementwise_options plain;
    elementwise_options barrier = plain;
    barrier.barrier_each_tile = true;
    const double without = cycles(tiled_add_trace(plain));
    const double with = cycles(tiled_add_trace(barrier));
    MESSAGE("without barrier " << without << " cycles, with " << with);
    CHECK(with > 1.2 * without);
    CHECK(replay_core(tiled_add_trace(barrier), hw_profile{}, 1).barrier_stall_cycles > 0);
  }

  TEST_CASE("more cores are faster until the HBM bandwidth floor") {
    const uint32_t total_tiles = 640;  // 10 MiB per input
    double previous = 0;
    for (uint32_t cores : {1u, 2u, 4u, 8u, 16u, 32u, 40u}) {
      const kernel_timing k = run_on_cores(cores, total_tiles);
      MESSAGE(cores << " cores: " << k.latency_us << " us (slowest core " << k.core_time_max_us
                    << " us, HBM floor " << k.hbm_floor_us << " us)");
      CHECK(k.latency_us >= k.launch_overhead_us + k.hbm_floor_us - 1e-9);
      if (cores <= 16) {
        CHECK(k.core_time_max_us > k.hbm_floor_us);
        if (previous > 0) CHECK(k.latency_us < previous);
      }
      previous = k.latency_us;
    }
    // At full width the cores together would outrun HBM: the shared-bandwidth floor decides.
    const kernel_timing all = run_on_cores(40, total_tiles);
    CHECK(all.core_time_max_us < all.hbm_floor_us);
    CHECK(all.latency_us == doctest::Approx(all.launch_overhead_us + all.hbm_floor_us));
  }

  TEST_CASE("tiny DataCopy bursts are slower per byte than large ones") {
    const uint32_t bytes = 65536;
    trace_builder large;
    large.copy_in(0, bytes);
    trace_builder bursts;
    bursts.copy_in(0, bytes, bytes / 32);  // 2048 bursts of one 32-byte block
    trace_builder copies;
    for (uint32_t off = 0; off < bytes; off += 256) copies.copy_in(off, 256);
    const double one = cycles(large.trace());
    CHECK(cycles(bursts.trace()) > 2 * one);
    CHECK(cycles(copies.trace()) > 2 * one);
  }

  TEST_CASE("the same trace always gives the same timing") {
    elementwise_options o;
    o.tiles = 64;
    const core_timing a = replay_core(tiled_add_trace(o), hw_profile{}, 8);
    const core_timing b = replay_core(tiled_add_trace(o), hw_profile{}, 8);
    CHECK(a.total_cycles == b.total_cycles);
    CHECK(a.busy_cycles == b.busy_cycles);
    CHECK(a.flag_wait_cycles == b.flag_wait_cycles);
    CHECK(run_on_cores(8, 64).latency_us == run_on_cores(8, 64).latency_us);
  }
}

}  // namespace
}  // namespace aopt::sim
