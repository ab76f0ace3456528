// TBufPool: a kernel in the style of the InitBufPool documentation runs two stages whose queues
// live in two pools sharing the same UB range, checked against plain C++ on three input sets;
// the pools' bounds, bufIDSize and share rules are enforced.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

constexpr uint32_t N = 512;  // elements per tile

class TwoStageKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    xGm_.SetGlobalBuffer((__gm__ float*)x, N);
    yGm_.SetGlobalBuffer((__gm__ float*)y, N);
    zGm_.SetGlobalBuffer((__gm__ float*)z, 2 * N);
    pipe_.InitBufPool(pool0_, 4 * N * sizeof(float));
    pool0_.InitBuffer(inQueueX_, 1, N * sizeof(float));  // lives across both stages
    pool0_.InitBufPool(pool1_, 2 * N * sizeof(float));
    pool0_.InitBufPool(pool2_, 2 * N * sizeof(float), pool1_);
  }
  // Stage 1 (pool1): z[0..N) = x + y. Stage 2 (pool2, the same UB): z[N..2N) = x * 3 - 1.
  __aicore__ inline void Process() {
    LocalTensor<float> x = inQueueX_.AllocTensor<float>();
    DataCopy(x, xGm_, N);
    inQueueX_.EnQue(x);
    x = inQueueX_.DeQue<float>();

    pool1_.InitBuffer(inQueueY_, 1, N * sizeof(float));
    pool1_.InitBuffer(outQueue1_, 1, N * sizeof(float));
    LocalTensor<float> y = inQueueY_.AllocTensor<float>();
    DataCopy(y, yGm_, N);
    inQueueY_.EnQue(y);
    y = inQueueY_.DeQue<float>();
    LocalTensor<float> z = outQueue1_.AllocTensor<float>();
    Add(z, x, y, N);
    stage1Addr_ = z.GetPhyAddr();
    outQueue1_.EnQue(z);
    inQueueY_.FreeTensor(y);
    z = outQueue1_.DeQue<float>();
    DataCopy(zGm_, z, N);
    outQueue1_.FreeTensor(z);
    pool1_.Reset();

    pool2_.InitBuffer(outQueue2_, 1, N * sizeof(float));
    pool2_.InitBuffer(tmp_, N * sizeof(float));
    LocalTensor<float> t = tmp_.Get<float>();
    Muls(t, x, 3.0f, N);
    LocalTensor<float> z2 = outQueue2_.AllocTensor<float>();
    Adds(z2, t, -1.0f, N);
    stage2Addr_ = z2.GetPhyAddr();
    outQueue2_.EnQue(z2);
    inQueueX_.FreeTensor(x);
    z2 = outQueue2_.DeQue<float>();
    DataCopy(zGm_[N], z2, N);
    outQueue2_.FreeTensor(z2);
    pool2_.Reset();
  }

  const float* stage1Addr_ = nullptr;
  const float* stage2Addr_ = nullptr;

 private:
  TPipe pipe_;
  TBufPool<TPosition::VECCALC> pool0_, pool1_, pool2_;
  TQue<QuePosition::VECIN, 1> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, 1> outQueue1_, outQueue2_;
  TBuf<TPosition::VECCALC> tmp_;
  GlobalTensor<float> xGm_, yGm_, zGm_;
};

TEST_SUITE("sim") {
  TEST_CASE("TBufPool: two stages in pools sharing one UB range compute what plain C++ does") {
    for (uint64_t seed : {31, 32, 33}) {
      std::mt19937_64 rng(seed);
      std::uniform_real_distribution<float> d(-8, 8);
      shim_run run;
      float* xg = run.gm<float>("x", N);
      float* yg = run.gm<float>("y", N);
      float* zg = run.gm<float>("z", 2 * N);
      for (uint32_t i = 0; i < N; ++i) {
        xg[i] = d(rng);
        yg[i] = d(rng);
      }
      const float* stage1 = nullptr;
      const float* stage2 = nullptr;
      const core_trace trace = run.run([&] {
        TwoStageKernel op;
        op.Init(reinterpret_cast<GM_ADDR>(xg), reinterpret_cast<GM_ADDR>(yg),
                reinterpret_cast<GM_ADDR>(zg));
        op.Process();
        stage1 = op.stage1Addr_;
        stage2 = op.stage2Addr_;
      });
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(zg[i] == xg[i] + yg[i]);
        CHECK(zg[N + i] == xg[i] * 3.0f - 1.0f);
      }
      // Stage 2's output buffer is the first buffer of pool2, which aliases pool1, whose first
      // buffer held stage 1's input y; stage 1's output came second.
      CHECK(stage2 + N == stage1);
      size_t barriers = 0;
      for (const instruction& in : trace.instructions)
        barriers += std::string(in.api) == "PipeBarrier<PIPE_ALL>" ? 1 : 0;
      CHECK(barriers == 2);  // each TBufPool::Reset costs a full barrier
    }
  }

  TEST_CASE("TBufPool refuses buffers beyond its length or bufIDSize and a too long share") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TBufPool<TPosition::VECCALC> pool;
                  TBuf<TPosition::VECCALC> a, b;
                  pipe.InitBufPool(pool, 1000);  // 1024 after alignment
                  pool.InitBuffer(a, 512);
                  pool.InitBuffer(b, 513);
                });
              },
              &message) == "ub_overflow");
    CHECK(message.find("TBufPool holds UB [0, 1024)") != std::string::npos);
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBufPool<TPosition::VECCALC, 2> pool;
              TBuf<TPosition::VECCALC> a, b, c;
              pipe.InitBufPool(pool, 4096);
              pool.InitBuffer(a, 32);
              pool.InitBuffer(b, 32);
              pool.InitBuffer(c, 32);
            });
          }) == "too_many_buffers");
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBufPool<TPosition::VECCALC> p1, p2;
              pipe.InitBufPool(p1, 1024);
              pipe.InitBufPool(p2, 2048, p1);
            });
          }) == "ub_overflow");
  }
}

}  // namespace
}  // namespace aopt::sim
