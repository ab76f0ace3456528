// The replay rules of the timing model on tiny hand-built traces, against costs computed by
// hand from the default (910B4-like) profile: issue 1 cycle, DMA 500 + 20/burst + bytes / 32,
// vector start-up 14 + 1 cycle per simple repeat.
#include <doctest/doctest.h>

#include "npu/sim/runtime/timing_model.hpp"
#include "sim/synthetic_trace.hpp"

namespace aopt::sim {
namespace {

using testing::trace_builder;

constexpr uint32_t tile = 16384;

TEST_SUITE("sim") {
  TEST_CASE(
      "a DataCopy costs the fixed latency, a per-burst overhead and bytes over the per-core "
      "bandwidth") {
    hw_profile hw;
    trace_builder b;
    b.copy_in(0, tile);
    const core_timing t = replay_core(b.trace(), hw, 1);
    CHECK(t.total_cycles == doctest::Approx(1 + 500 + 20 + tile / 32.0));
    CHECK(t.busy_cycles[static_cast<size_t>(pipe::mte2)] ==
          doctest::Approx(500 + 20 + tile / 32.0));
    CHECK(t.dma_bytes == tile);
    CHECK(t.dma_bursts == 1);
  }

  TEST_CASE("with many active cores a core's DMA bandwidth is its share of HBM") {
    hw_profile hw;
    trace_builder b;
    b.copy_in(0, tile);
    const double hbm_share = hw.hbm_gbps / hw.clock_ghz / 40;  // 13.3 bytes per cycle < 32
    const core_timing t = replay_core(b.trace(), hw, 40);
    CHECK(t.total_cycles == doctest::Approx(1 + 520 + tile / hbm_share));
  }

  TEST_CASE("short bursts and unaligned GM addresses lower the DMA bandwidth") {
    hw_profile hw;
    trace_builder shortb;
    shortb.copy_in(0, tile, tile / 256);  // 64 bursts of 256 bytes < 512
    CHECK(replay_core(shortb.trace(), hw, 1).total_cycles ==
          doctest::Approx(1 + 500 + 64 * 20 + tile / (32.0 / hw.dma_short_burst_penalty)));
    trace_builder unaligned;
    unaligned.copy_in(0, tile, 1, true);
    CHECK(replay_core(unaligned.trace(), hw, 1).total_cycles ==
          doctest::Approx(1 + 520 + tile / (32.0 * hw.dma_unaligned_efficiency)));
  }

  TEST_CASE(
      "a vector op costs start-up plus repeats times its class cost; the roofline work excludes "
      "start-up") {
    hw_profile hw;
    trace_builder b;
    b.vector(op_class::vec_simple, "Add", 0, {tile, 2 * tile}, tile);
    b.vector(op_class::vec_div_transcendental, "Exp", 0, {0}, tile);
    const core_timing t = replay_core(b.trace(), hw, 1);
    const double repeats = tile / 256.0;
    CHECK(t.busy_cycles[static_cast<size_t>(pipe::v)] ==
          doctest::Approx(2 * hw.vec_startup_cycles +
                          repeats * (1 + hw.vec_div_transcendental_cycles_per_repeat)));
    CHECK(t.vector_work_cycles ==
          doctest::Approx(repeats * (1 + hw.vec_div_transcendental_cycles_per_repeat)));
    CHECK(t.vector_instructions == 2);
  }

  TEST_CASE("independent pipes run in parallel") {
    hw_profile hw;
    trace_builder b;
    b.copy_in(0, tile);
    b.vector(op_class::vec_simple, "Add", tile, {2 * tile, 3 * tile}, tile);
    const core_timing t = replay_core(b.trace(), hw, 1);
    CHECK(t.total_cycles == doctest::Approx(1 + 520 + tile / 32.0));
  }

  TEST_CASE("a wait_flag holds its pipe until the set_flag's pipe has finished the earlier work") {
    hw_profile hw;
    trace_builder b;
    b.copy_in(0, tile);
    const uint32_t set = b.set_flag(pipe::mte2);
    b.wait_flag(pipe::v, set);
    b.vector(op_class::vec_simple, "Add", tile, {0, 0}, tile);
    const core_timing t = replay_core(b.trace(), hw, 1);
    const double dma_end = 1 + 520 + tile / 32.0;
    CHECK(t.total_cycles == doctest::Approx(dma_end + 14 + 64));
    CHECK(t.flag_wait_cycles == doctest::Approx(dma_end - 3));  // the wait was issued at cycle 3
  }

  TEST_CASE("issue stalls when a pipe's queue is full") {
    hw_profile hw;
    auto run = [&hw](uint32_t depth) {
      hw.pipe_queue_depth = depth;
      trace_builder b;
      for (int i = 0; i < 3; ++i) b.copy_in(0, tile);
      b.vector(op_class::vec_simple, "Add", tile, {tile, tile}, 256 * 10000);
      return replay_core(b.trace(), hw, 1).total_cycles;
    };
    const double dma = 520 + tile / 32.0;
    CHECK(run(32) == doctest::Approx(4 + 14 + 10000));
    // Depth 1: the third DataCopy waits in the queue until the first finishes, and so does issue.
    CHECK(run(1) == doctest::Approx(1 + dma + 1 + 14 + 10000));
  }

  TEST_CASE("scalar UB accesses run on S and hold up issue of everything after them") {
    hw_profile hw;
    trace_builder b;
    b.scalar("GetValue", 0, 4, 100, false);
    b.vector(op_class::vec_simple, "Add", tile, {tile, tile}, tile);
    const core_timing t = replay_core(b.trace(), hw, 1);
    CHECK(t.total_cycles == doctest::Approx(100 * (1 + hw.scalar_ub_access_cycles) + 1 + 14 + 64));
    CHECK(t.scalar_accesses == 100);
    CHECK(t.busy_cycles[static_cast<size_t>(pipe::s)] ==
          doctest::Approx(100 * (1 + hw.scalar_ub_access_cycles) + 1));
  }

  TEST_CASE("PipeBarrier<PIPE_ALL> stalls issue until every pipe drains") {
    hw_profile hw;
    trace_builder b;
    b.copy_in(0, tile);
    b.pipe_all_barrier();
    b.vector(op_class::vec_simple, "Add", tile, {tile, tile}, tile);
    const core_timing t = replay_core(b.trace(), hw, 1);
    const double dma_end = 1 + 520 + tile / 32.0;
    CHECK(t.barrier_stall_cycles == doctest::Approx(dma_end - 2));
    CHECK(t.total_cycles == doctest::Approx(dma_end + 1 + 14 + 64));
  }

  TEST_CASE("a kernel takes the launch overhead plus its slowest core") {
    hw_profile hw;
    std::vector<core_timing> cores(2);
    cores[0].total_cycles = 1500;  // 1 us at 1.5 GHz
    cores[1].total_cycles = 3000;
    const std::vector<core_trace> traces(2);
    const kernel_timing k = combine_cores(cores, traces, hw);
    CHECK(k.launch_overhead_us == doctest::Approx(hw.launch_overhead_us(2)));
    CHECK(k.core_time_max_us == doctest::Approx(2));
    CHECK(k.core_time_mean_us == doctest::Approx(1.5));
    CHECK(k.critical_core == 1);
    CHECK(k.latency_us == doctest::Approx(hw.launch_overhead_us(2) + 2));
  }

  TEST_CASE("a kernel is never faster than its total GM traffic over the HBM bandwidth") {
    hw_profile hw;
    std::vector<core_timing> cores(2);
    cores[0].total_cycles = cores[1].total_cycles = 1500;
    std::vector<core_trace> traces(2);
    traces[0].gm_read_bytes = traces[1].gm_write_bytes = 4'000'000;  // 8 MB at 800 GB/s = 10 us
    const kernel_timing k = combine_cores(cores, traces, hw);
    CHECK(k.hbm_floor_us == doctest::Approx(10));
    CHECK(k.latency_us == doctest::Approx(hw.launch_overhead_us(2) + 10));
  }

  TEST_CASE("blockDim 48 on a 40-core profile runs in two waves") {
    hw_profile hw;  // 40 vector cores
    REQUIRE(hw.vector_cores == 40);
    auto launch = [&hw](uint32_t blocks) {
      std::vector<core_timing> cores(blocks);
      for (core_timing& c : cores) c.total_cycles = 1500;  // 1 us per block
      return combine_cores(cores, std::vector<core_trace>(blocks), hw);
    };
    const kernel_timing forty = launch(40);
    const kernel_timing forty_eight = launch(48);
    CHECK(forty.waves == 1);
    CHECK(forty_eight.waves == 2);
    CHECK(forty.core_time_max_us == doctest::Approx(1));
    CHECK(forty_eight.core_time_max_us == doctest::Approx(2));  // 8 cores run a second block
    CHECK(forty_eight.launch_overhead_us == doctest::Approx(hw.launch_overhead_us(40)));
    CHECK(forty_eight.latency_us > forty.latency_us);
    const double serial_us = hw.launch_overhead_us(1) + 48 * 1.0;
    CHECK(forty_eight.latency_us < serial_us);
    // 65535 logical blocks: ceil(65535 / 40) waves of 1 us each.
    const kernel_timing most = launch(65535);
    CHECK(most.waves == 1639);
    CHECK(most.core_time_max_us == doctest::Approx(1639));
  }

  TEST_CASE("an uneven block lands on the core that frees first") {
    hw_profile hw;
    hw.vector_cores = 2;
    std::vector<core_timing> cores(3);
    cores[0].total_cycles = 3000;  // 2 us
    cores[1].total_cycles = 1500;  // 1 us
    cores[2].total_cycles = 1500;  // runs after block 1, on the same core
    const kernel_timing k = combine_cores(cores, std::vector<core_trace>(3), hw);
    CHECK(k.core_time_max_us == doctest::Approx(2));
    CHECK(k.critical_core == 0);
    CHECK(k.waves == 2);
  }

  TEST_CASE("SyncAll holds every block until the slowest reaches it, and costs GM accesses") {
    hw_profile hw;
    // Block 0 does 64 repeats of work before the barrier, block 1 one; both one after it.
    auto block = [](uint32_t work_bytes) {
      trace_builder b;
      b.vector(op_class::vec_simple, "Adds", 0, {0}, work_bytes);
      const uint32_t sync = b.pipe_all_barrier();
      b.vector(op_class::vec_simple, "Adds", 0, {0}, 256);
      core_trace t = b.take();
      t.instructions[sync].cls = op_class::sync_all;
      t.instructions[sync].api = "SyncAll";
      t.instructions[sync].count = 2;
      return t;
    };
    const std::vector<core_trace> traces = {block(64 * 256), block(256)};
    const std::vector<core_timing> alone = {replay_core(traces[0], hw, 2),
                                            replay_core(traces[1], hw, 2)};
    const std::vector<core_timing> together = replay_cores(traces, hw, 2);
    // Alone, the barrier's only cost is its two GM accesses.
    const double sync_cost = 2 * hw.scalar_gm_access_cycles;
    CHECK(alone[0].total_cycles == doctest::Approx(1 + 14 + 64 + sync_cost + 1 + 14 + 1));
    CHECK(together[0].total_cycles == doctest::Approx(alone[0].total_cycles));
    CHECK(together[0].sync_all_wait_cycles == 0);
    // Block 1 waits for block 0's 63 extra repeats, then finishes with it.
    CHECK(together[1].sync_all_wait_cycles == doctest::Approx(63));
    CHECK(together[1].total_cycles == doctest::Approx(together[0].total_cycles));
    CHECK(together[1].total_cycles == doctest::Approx(alone[1].total_cycles + 63));
  }

  TEST_CASE("IBWait holds its block until the IBSet of its flag, and only that block") {
    hw_profile hw;
    // Block 0 waits for block 1's flag 7, which block 1 sets after 64 repeats of work; block 1
    // does its work and sets it, never waiting.
    trace_builder b0;
    const uint32_t wait = b0.pipe_all_barrier();
    b0.vector(op_class::vec_simple, "Adds", 0, {0}, 256);
    core_trace t0 = b0.take();
    t0.instructions[wait].cls = op_class::ib_wait;
    t0.instructions[wait].bytes = 7;
    t0.instructions[wait].count = 2;
    trace_builder b1;
    b1.vector(op_class::vec_simple, "Adds", 0, {0}, 64 * 256);
    const uint32_t set = b1.pipe_all_barrier();
    core_trace t1 = b1.take();
    t1.instructions[set].cls = op_class::ib_set;
    t1.instructions[set].bytes = 7;
    t1.instructions[set].count = 2;
    const std::vector<core_trace> traces = {t0, t1};
    const core_timing alone = replay_core(traces[0], hw, 2);
    const std::vector<core_timing> together = replay_cores(traces, hw, 2);
    const double flag_cost = 2 * hw.scalar_gm_access_cycles;
    // Block 1 is not slowed; block 0 starts its work only once block 1's flag is set.
    CHECK(together[1].total_cycles == doctest::Approx(replay_core(traces[1], hw, 2).total_cycles));
    const double set_at = 1 + 14 + 64 + flag_cost;
    CHECK(together[1].total_cycles == doctest::Approx(set_at));
    CHECK(together[0].flag_wait_cycles == doctest::Approx(set_at - 1));
    CHECK(together[0].total_cycles == doctest::Approx(set_at + flag_cost + 1 + 14 + 1));
    CHECK(together[0].total_cycles > alone.total_cycles + 60);
    // A flag no block sets (the functional run reports that deadlock) ends the replay anyway.
    const std::vector<core_timing> orphan = replay_cores({t0}, hw, 1);
    CHECK(orphan[0].total_cycles == doctest::Approx(alone.total_cycles));
  }
}

}  // namespace
}  // namespace aopt::sim
