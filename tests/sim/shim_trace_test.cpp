// The per-core trace the shim records (trace.hpp): one instruction per API call on the right
// pipe with its work and UB footprint, the hidden queue synchronisation as set/wait edges,
// barriers, scalar coalescing, GM byte counts; and that the timing model and hazard detector
// read it as intended.
#include <doctest/doctest.h>

#include <algorithm>

#include "npu/sim/runtime/hazard_detector.hpp"
#include "npu/sim/runtime/timing_model.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

// The index of the first instruction whose api starts with `api`, searching from `from`.
uint32_t find(const core_trace& t, const std::string& api, uint32_t from = 0) {
  for (uint32_t i = from; i < t.instructions.size(); ++i)
    if (std::string(t.instructions[i].api).rfind(api, 0) == 0) return i;
  FAIL("no instruction " << api);
  return 0;
}

bool same(const ub_range& r, uint32_t begin, uint32_t end) {
  return r.begin == begin && r.end == end;
}

// A tiled elementwise kernel z = 2 * (x + y) with `buffers` buffers per queue, followed by
// `extra_work` vector instructions (Abs) per tile.
void add_kernel(half* x, half* y, half* z, uint32_t total, uint32_t tile, int32_t buffers,
                int extra_work = 0) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> in_x;
  TQue<QuePosition::VECIN, 2> in_y;
  TQue<QuePosition::VECOUT, 2> out_z;
  pipe.InitBuffer(in_x, static_cast<uint8_t>(buffers), tile * sizeof(half));
  pipe.InitBuffer(in_y, static_cast<uint8_t>(buffers), tile * sizeof(half));
  pipe.InitBuffer(out_z, static_cast<uint8_t>(buffers), tile * sizeof(half));
  GlobalTensor<half> xg;
  GlobalTensor<half> yg;
  GlobalTensor<half> zg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), total);
  yg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), total);
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(z), total);
  for (uint32_t i = 0; i < total / tile; ++i) {
    LocalTensor<half> a = in_x.AllocTensor<half>();
    LocalTensor<half> b = in_y.AllocTensor<half>();
    DataCopy(a, xg[i * tile], tile);
    DataCopy(b, yg[i * tile], tile);
    in_x.EnQue(a);
    in_y.EnQue(b);
    LocalTensor<half> xa = in_x.DeQue<half>();
    LocalTensor<half> yb = in_y.DeQue<half>();
    LocalTensor<half> c = out_z.AllocTensor<half>();
    Add(c, xa, yb, tile);
    Muls(c, c, 2.0f, tile);
    for (int k = 0; k < extra_work; ++k) Abs(c, c, tile);
    out_z.EnQue(c);
    in_x.FreeTensor(xa);
    in_y.FreeTensor(yb);
    LocalTensor<half> zc = out_z.DeQue<half>();
    DataCopy(zg[i * tile], zc, tile);
    out_z.FreeTensor(zc);
  }
}

TEST_SUITE("sim") {
  TEST_CASE("DataCopy and vector ops are traced on their pipes with bytes, repeats and UB ranges") {
    shim_run run;
    half* x = run.gm<half>("x", 4096);
    half* y = run.gm<half>("y", 4096);
    half* z = run.gm<half>("z", 4096);
    for (int i = 0; i < 4096; ++i) {
      x[i] = static_cast<half>(i % 7);
      y[i] = static_cast<half>(1);
    }
    const core_trace t = run.run([&] { add_kernel(x, y, z, 4096, 1024, 2); });
    CHECK(static_cast<float>(z[100]) == 2.0f * (100 % 7 + 1));

    const instruction& copy_in = t.instructions[find(t, "DataCopy")];
    CHECK(copy_in.on == pipe::mte2);
    CHECK(copy_in.cls == op_class::dma_in);
    CHECK(copy_in.bytes == 2048);
    CHECK(copy_in.bursts == 1);
    CHECK(copy_in.min_burst_bytes == 2048);
    CHECK_FALSE(copy_in.gm_unaligned);
    REQUIRE(copy_in.writes.size() == 1);
    CHECK(same(copy_in.writes[0], 0, 2048));
    CHECK(copy_in.line > 0);

    const instruction& add = t.instructions[find(t, "Add")];
    CHECK(add.on == pipe::v);
    CHECK(add.cls == op_class::vec_simple);
    CHECK(add.bytes == 2048);
    CHECK(add.repeats == 8);
    REQUIRE(add.reads.size() == 2);
    CHECK(same(add.reads[0], 0, 2048));
    CHECK(same(add.reads[1], 4096, 6144));
    REQUIRE(add.writes.size() == 1);
    CHECK(same(add.writes[0], 8192, 10240));
    CHECK(t.instructions[find(t, "Muls")].cls == op_class::vec_mul);

    const instruction& copy_out = t.instructions[find(t, "DataCopy", find(t, "Muls"))];
    CHECK(copy_out.on == pipe::mte3);
    CHECK(copy_out.cls == op_class::dma_out);
    CHECK(same(copy_out.reads.at(0), 8192, 10240));

    CHECK(t.gm_read_bytes == 2 * 4096 * 2);
    CHECK(t.gm_write_bytes == 4096 * 2);
    CHECK(t.ub_high_water_bytes == 6 * 2048);
    // One carve per InitBuffer, in call order, on consecutive source lines.
    REQUIRE(t.ub_carves.size() == 3);
    for (const ub_carve& c : t.ub_carves) {
      CHECK(c.buffers == 2);
      CHECK(c.bytes_each == 2048);
    }
    CHECK(t.ub_carves[1].line == t.ub_carves[0].line + 1);
    CHECK(t.ub_carves[2].line == t.ub_carves[1].line + 1);
  }

  TEST_CASE("EnQue/DeQue and FreeTensor/AllocTensor become set/wait pairs with dependency edges") {
    shim_run run;
    half* x = run.gm<half>("x", 4096);
    half* y = run.gm<half>("y", 4096);
    half* z = run.gm<half>("z", 4096);
    const core_trace t = run.run([&] { add_kernel(x, y, z, 4096, 1024, 2); });

    const uint32_t enq = find(t, "EnQue");
    CHECK(t.instructions[enq].on == pipe::mte2);
    CHECK(t.instructions[enq].cls == op_class::set_flag);
    const uint32_t deq = find(t, "DeQue");
    CHECK(t.instructions[deq].on == pipe::v);
    CHECK(t.instructions[deq].cls == op_class::wait_flag);
    CHECK(t.instructions[deq].deps == std::vector<uint32_t>{enq});

    // VECOUT: EnQue sets on V, DeQue waits on MTE3.
    const uint32_t out_enq = find(t, "EnQue", find(t, "Muls"));
    CHECK(t.instructions[out_enq].on == pipe::v);
    const uint32_t out_deq = find(t, "DeQue", out_enq);
    CHECK(t.instructions[out_deq].on == pipe::mte3);
    CHECK(t.instructions[out_deq].deps == std::vector<uint32_t>{out_enq});

    // The first FreeTensor of in_x's first buffer sets on V; the AllocTensor that reuses that
    // buffer (the third tile, with two buffers) waits on MTE2 for it.
    const uint32_t free_x = find(t, "FreeTensor");
    CHECK(t.instructions[free_x].on == pipe::v);
    CHECK(t.instructions[free_x].cls == op_class::set_flag);
    const uint32_t reuse = find(t, "AllocTensor");
    CHECK(t.instructions[reuse].on == pipe::mte2);
    CHECK(t.instructions[reuse].cls == op_class::wait_flag);
    CHECK(t.instructions[reuse].deps == std::vector<uint32_t>{free_x});
    // Tiles 0 and 1 used fresh buffers: the first wait comes after tile 1's compute.
    CHECK(reuse > find(t, "Muls", find(t, "Muls") + 1));
  }

  TEST_CASE("TBuf, PipeBarrier and explicit flags record barriers and set/wait edges") {
    shim_run run;
    float* x = run.gm<float>("x", 64);
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 256);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
      LocalTensor<float> v = buf.Get<float>();
      DataCopy(v, g, 64);
      SetFlag<HardEvent::MTE2_V>(0);
      WaitFlag<HardEvent::MTE2_V>(0);
      Adds(v, v, 1.0f, 64);
      PipeBarrier<PIPE_V>();
      Muls(v, v, 2.0f, 64);
      PipeBarrier<PIPE_ALL>();
      DataCopy(g, v, 64);
    });
    const uint32_t set = find(t, "SetFlag");
    CHECK(t.instructions[set].on == pipe::mte2);
    const uint32_t wait = find(t, "WaitFlag");
    CHECK(t.instructions[wait].on == pipe::v);
    CHECK(t.instructions[wait].deps == std::vector<uint32_t>{set});
    const uint32_t bar_v = find(t, "PipeBarrier<PIPE_V>");
    CHECK(t.instructions[bar_v].on == pipe::v);
    CHECK(t.instructions[bar_v].cls == op_class::barrier);
    const uint32_t all = find(t, "PipeBarrier<PIPE_ALL>");
    CHECK(t.instructions[all].on == pipe::s);
    CHECK(t.instructions[all].all_pipes_barrier);
    std::vector<uint32_t> deps = t.instructions[all].deps;
    std::sort(deps.begin(), deps.end());
    // The last MTE2 instruction (the copy-in's SetFlag) and the last V one (Muls).
    CHECK(deps == std::vector<uint32_t>{set, find(t, "Muls")});
    CHECK_FALSE(find_first_race(t).has_value());
  }

  TEST_CASE("consecutive scalar accesses coalesce into one instruction per kind") {
    shim_run run;
    float* x = run.gm<float>("x", 4096);
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 4096 * 4);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 4096);
      LocalTensor<float> v = buf.Get<float>();
      for (uint32_t i = 0; i < 4096; ++i) v.SetValue(i, g.GetValue(i) + 1.0f);
      Adds(v, v, 1.0f, 64);
      for (uint32_t i = 0; i < 8; ++i) v.GetValue(i * 64);
    });
    REQUIRE(t.instructions.size() == 4);
    const instruction& gm = t.instructions[0];  // GetValue runs before SetValue
    const instruction& ub = t.instructions[1];
    CHECK(gm.cls == op_class::scalar_gm);
    CHECK(gm.count == 4096);
    CHECK(gm.on == pipe::s);
    CHECK(ub.cls == op_class::scalar_ub);
    CHECK(ub.count == 4096);
    REQUIRE(ub.writes.size() == 1);
    CHECK(same(ub.writes[0], 0, 16384));
    const instruction& strided = t.instructions[3];
    CHECK(strided.count == 8);
    CHECK(strided.reads.size() == 8);
    CHECK(t.gm_read_bytes == 4096 * 4);
  }

  TEST_CASE("every GM access names the instruction that made it") {
    shim_run run;
    float* x = run.gm<float>("x", 1024);
    float* z = run.gm<float>("z", 1024);
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 1024 * 4);
      GlobalTensor<float> xg;
      GlobalTensor<float> zg;
      xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 1024);
      zg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z), 1024);
      LocalTensor<float> v = buf.Get<float>();
      DataCopy(v, xg, 1024);
      PipeBarrier<PIPE_ALL>();
      DataCopy(zg, v, 1024);
      PipeBarrier<PIPE_ALL>();
      // A scalar loop: the reads and the stores, recorded at the next access, are its one
      // coalesced instruction's.
      for (uint32_t i = 0; i < 4; ++i) zg.SetValue(i, xg.GetValue(i) + 1.0f);
    });
    const uint32_t copy_in = find(t, "DataCopy");
    const uint32_t copy_out = find(t, "DataCopy", copy_in + 1);
    const uint32_t scalar = find(t, "GlobalTensor");
    CHECK(t.instructions[scalar].cls == op_class::scalar_gm);
    REQUIRE(t.gm_reads.size() >= 2);
    CHECK(t.gm_reads[0].instruction == copy_in);
    for (size_t i = 1; i < t.gm_reads.size(); ++i) CHECK(t.gm_reads[i].instruction == scalar);
    REQUIRE(t.gm_writes.size() >= 2);
    CHECK(t.gm_writes[0].instruction == copy_out);
    for (size_t i = 1; i < t.gm_writes.size(); ++i) CHECK(t.gm_writes[i].instruction == scalar);
  }

  TEST_CASE("a mask-form op records its repeats and the hull of the bytes it touches") {
    shim_run run;
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 8192);
      LocalTensor<float> v = buf.Get<float>();
      Exp(v, v[1024], 16, 3, {1, 1, 8, 8});
    });
    const instruction& in = t.instructions.at(0);
    CHECK(in.cls == op_class::vec_div_transcendental);
    CHECK(in.repeats == 3);
    CHECK(in.bytes == 3 * 256);
    CHECK(same(in.writes.at(0), 0, 2 * 256 + 64));
    CHECK(same(in.reads.at(0), 4096, 4096 + 2 * 256 + 64));
  }

  TEST_CASE("with recording off nothing is kept but every check still runs") {
    shim_run run;
    run.launch.record_trace = false;
    half* x = run.gm<half>("x", 4096);
    half* y = run.gm<half>("y", 4096);
    half* z = run.gm<half>("z", 4096);
    x[5] = static_cast<half>(3);
    const core_trace t = run.run([&] { add_kernel(x, y, z, 4096, 1024, 2); });
    CHECK(t.instructions.empty());
    CHECK(static_cast<float>(z[5]) == 6.0f);
    CHECK(testing::error_kind([&] { run.run([] { WaitFlag<HardEvent::V_S>(0); }); }) ==
          "flag_misuse");
  }

  TEST_CASE("double buffering overlaps copy and compute in the timing model") {
    // Per tile the vector work is about as long as the copy-in, so overlapping them pays.
    shim_run run;
    const uint32_t total = 64 * 1024;
    half* x = run.gm<half>("x", total);
    half* y = run.gm<half>("y", total);
    half* z = run.gm<half>("z", total);
    const core_trace single = run.run([&] { add_kernel(x, y, z, total, 4096, 1, 30); });
    const core_trace twice = run.run([&] { add_kernel(x, y, z, total, 4096, 2, 30); });
    CHECK_FALSE(find_first_race(single).has_value());
    CHECK_FALSE(find_first_race(twice).has_value());
    const hw_profile hw;
    CHECK(replay_core(twice, hw, 1).total_cycles < 0.75 * replay_core(single, hw, 1).total_cycles);
  }

  TEST_CASE("a copy-in read by a vector op without synchronisation is a data race") {
    shim_run run;
    float* x = run.gm<float>("x", 64);
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 256);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
      LocalTensor<float> v = buf.Get<float>();
      DataCopy(v, g, 64);
      Adds(v, v, 1.0f, 64);
    });
    const auto race = find_first_race(t);
    REQUIRE(race.has_value());
    CHECK(race->message.find("DataCopy") != std::string::npos);
    CHECK(race->message.find("Adds") != std::string::npos);
  }
}

}  // namespace
}  // namespace aopt::sim
