// Timing laws of the cube, asserted on real kernels run through the shim and replayed by the
// timing model: a larger base tile is faster until L0 overflows; double-buffered L1 lets MTE2
// (GM -> L1) overlap M (Mmad); the time approaches the compute bound (MACs at the peak rate) as
// the shape grows.
#include <doctest/doctest.h>

#include <vector>

#include "npu/sim/runtime/timing_model.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

struct tiling {
  uint32_t m, n, k;
  uint32_t base_m, base_n, base_k;
  int32_t l1_buffers = 1;
};

// One core computes c = a x b (half in, half out) in base_m x base_n tiles, k in base_k steps,
// the structure of the corpus matmul (CopyIn, SplitA, SplitB, Compute, CopyOut with queues).
void tiled_matmul(const tiling& t, half* a, half* b, half* c) {
  TPipe pipe;
  TQue<TPosition::A1, 2> qa1;
  TQue<TPosition::B1, 2> qb1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc;
  pipe.InitBuffer(qa1, t.l1_buffers, t.base_m * t.base_k * 2);
  pipe.InitBuffer(qb1, t.l1_buffers, t.base_k * t.base_n * 2);
  pipe.InitBuffer(qa2, 1, t.base_m * t.base_k * 2);
  pipe.InitBuffer(qb2, 1, t.base_k * t.base_n * 2);
  pipe.InitBuffer(qc, 1, t.base_m * t.base_n * 4);
  GlobalTensor<half> ag, bg, cg;
  ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), t.m * t.k);
  bg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), t.k * t.n);
  cg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(c), t.m * t.n);
  const uint32_t mb = t.base_m / 16, nb = t.base_n / 16, kb = t.base_k / 16;
  for (uint32_t row = 0; row < t.m; row += t.base_m) {
    for (uint32_t col = 0; col < t.n; col += t.base_n) {
      LocalTensor<float> c1 = qc.AllocTensor<float>();
      for (uint32_t ko = 0; ko < t.k; ko += t.base_k) {
        LocalTensor<half> a1 = qa1.AllocTensor<half>();
        LocalTensor<half> b1 = qb1.AllocTensor<half>();
        DataCopy(a1, ag[row * t.k + ko],
                 Nd2NzParams(1, t.base_m, t.base_k, 0, t.k, t.base_m, 1, 0));
        DataCopy(b1, bg[ko * t.n + col],
                 Nd2NzParams(1, t.base_k, t.base_n, 0, t.n, t.base_k, 1, 0));
        qa1.EnQue(a1);
        qb1.EnQue(b1);
        a1 = qa1.DeQue<half>();
        LocalTensor<half> a2 = qa2.AllocTensor<half>();
        for (uint32_t i = 0; i < mb; ++i)
          LoadData(a2[i * 16 * t.base_k], a1[i * 256], LoadData2DParams(0, kb, mb, 0, 0, false, 0));
        qa2.EnQue(a2);
        qa1.FreeTensor(a1);
        b1 = qb1.DeQue<half>();
        LocalTensor<half> b2 = qb2.AllocTensor<half>();
        for (uint32_t i = 0; i < kb; ++i)
          LoadData(b2[i * 16 * t.base_n], b1[i * 256], LoadData2DParams(0, nb, kb, 0, 0, true, 0));
        qb2.EnQue(b2);
        qb1.FreeTensor(b1);
        a2 = qa2.DeQue<half>();
        b2 = qb2.DeQue<half>();
        MmadParams p;
        p.m = t.base_m;
        p.n = t.base_n;
        p.k = t.base_k;
        p.cmatrixInitVal = ko == 0;
        Mmad(c1, a2, b2, p);
        qa2.FreeTensor(a2);
        qb2.FreeTensor(b2);
      }
      qc.EnQue(c1);
      c1 = qc.DeQue<float>();
      FixpipeParamsV220 fp(t.base_n, t.base_m, t.base_m, t.n, false);
      fp.quantPre = F322F16;
      Fixpipe(cg[row * t.n + col], c1, fp);
      qc.FreeTensor(c1);
    }
  }
}

struct outcome {
  std::string error;
  core_timing timing;
  double compute_cycles = 0;  // MACs at the profile's half rate
};

outcome run_tiled(const tiling& t) {
  shim_run run;
  half* a = run.gm<half>("a", size_t{t.m} * t.k);
  half* b = run.gm<half>("b", size_t{t.k} * t.n);
  half* c = run.gm<half>("c", size_t{t.m} * t.n);
  for (size_t i = 0; i < size_t{t.m} * t.k; ++i) a[i] = static_cast<half>((i % 7) * 0.125f);
  for (size_t i = 0; i < size_t{t.k} * t.n; ++i) b[i] = static_cast<half>((i % 5) * 0.25f);
  outcome o;
  core_trace trace;
  o.error = error_kind([&] { trace = run.run([&] { tiled_matmul(t, a, b, c); }); });
  if (!o.error.empty()) return o;
  o.timing = replay_core(trace, run.launch.hw, 1);
  o.compute_cycles = static_cast<double>(t.m) * t.n * t.k / run.launch.hw.cube_f16_macs_per_cycle;
  return o;
}

TEST_SUITE("sim") {
  TEST_CASE("a larger base tile is faster until L0 overflows") {
    const std::vector<tiling> growing = {{256, 256, 128, 32, 32, 32},
                                         {256, 256, 128, 64, 64, 64},
                                         {256, 256, 128, 128, 128, 64},
                                         {256, 256, 128, 128, 256, 64}};
    double previous = 0;
    for (const tiling& t : growing) {
      CAPTURE(t.base_m);
      CAPTURE(t.base_n);
      const outcome o = run_tiled(t);
      REQUIRE(o.error.empty());
      if (previous > 0) CHECK(o.timing.total_cycles < previous);
      previous = o.timing.total_cycles;
    }
    // 256 x 256 floats are 256 KiB: more than L0C's 128 KiB.
    CHECK(run_tiled({256, 256, 128, 256, 256, 64}).error == "ub_overflow");
    // 128 x 512 halves are 128 KiB: more than L0A's 64 KiB.
    CHECK(run_tiled({128, 128, 512, 128, 128, 512}).error == "ub_overflow");
  }

  TEST_CASE("double-buffered L1 overlaps MTE2 with M") {
    const tiling single{128, 128, 1024, 128, 128, 64, 1};
    tiling twice = single;
    twice.l1_buffers = 2;
    const outcome one = run_tiled(single);
    const outcome two = run_tiled(twice);
    REQUIRE(one.error.empty());
    REQUIRE(two.error.empty());
    const auto mte2 = static_cast<size_t>(pipe::mte2);
    const auto m = static_cast<size_t>(pipe::m);
    // Same work on each pipe, less time: the pipes ran at once.
    CHECK(two.timing.busy_cycles[m] == doctest::Approx(one.timing.busy_cycles[m]));
    CHECK(two.timing.total_cycles < 0.9 * one.timing.total_cycles);
    CHECK(two.timing.total_cycles < two.timing.busy_cycles[mte2] + two.timing.busy_cycles[m]);
  }

  TEST_CASE("the time approaches the compute bound as the shape grows") {
    double previous = 0;
    for (uint32_t k : {128u, 512u, 2048u}) {
      CAPTURE(k);
      const outcome o = run_tiled({128, 256, k, 128, 256, 128, 2});
      REQUIRE(o.error.empty());
      const double fraction = o.compute_cycles / o.timing.total_cycles;
      CHECK(fraction <= 1.0);
      CHECK(fraction > previous);
      previous = fraction;
    }
    // The rest is MTE2: every GM -> L1 copy pays the profile's DMA start-up (assumed 500 cycles),
    // and a 128 x 256 x 128 step moves 96 KiB for 1024 cycles of Mmad. One core reads each operand
    // byte once, so every byte comes from GM at 32 bytes a cycle (only bytes the launch touched
    // before come from L2, l2_reuse.hpp): 3072 cycles a step, the fraction below a third.
    MESSAGE("compute-bound fraction at k = 2048: " << previous);
    CHECK(previous > 0.2);
    CHECK(previous < 1.0 / 3);
  }
}

}  // namespace
}  // namespace aopt::sim
