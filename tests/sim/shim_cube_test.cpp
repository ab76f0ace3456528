// The cube side of the shim (aopt_sim/kernel/cube.h) against plain C++: GM -> L1 with ND -> NZ,
// LoadData (plain and transposed) into L0A/L0B, Mmad (half, bfloat16, int8; init, accumulate,
// bias), Fixpipe into GM (ND and NZ, ReLU, the quantization modes, atomic accumulation); the
// queues' hidden flags between MTE2, MTE1, M and FIX; races between the cube pipes; capacities from
// the profile.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "npu/sim/runtime/hazard_detector.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

// One core computes C (m x n, float or a quantized type) = A (m x k) x B (k x n) (+ bias), with
// every matrix ND in GM and m, n multiples of 16 and k a multiple of c0, the way the public
// samples do: GM -> A1/B1 in NZ, A1 -> A2 row block by row block, B1 -> B2 with a transposing
// LoadData per k block (16-bit types) or from a transposed B (int8), one whole-k
// Mmad, Fixpipe out.
template <typename In, typename Out, typename Acc>
struct cube_matmul {
  uint32_t m, n, k;
  bool b_transposed = false;  // B given as n x k (int8 needs it: no 8-bit 2D transpose)
  bool with_bias = false;
  bool relu = false;
  QuantMode_t quant = NoQuant;
  float scale = 1.0f;
  bool scale_by_flag = false;  // SetFixpipePreQuantFlag instead of deqScalar
  int atomic = 0;              // the Fixpipe under SetAtomicAdd (1) or SetAtomicMax (2)

  void run(In* a, In* b, Acc* bias, Out* c) const {
    constexpr uint32_t c0 = 32 / sizeof(In);
    TPipe pipe;
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    TQue<TPosition::C1, 1> biasC1;
    TQue<TPosition::C2, 1> biasC2;
    pipe.InitBuffer(inA1, 1, m * k * sizeof(In));
    pipe.InitBuffer(inB1, 1, k * n * sizeof(In));
    pipe.InitBuffer(inA2, 1, m * k * sizeof(In));
    pipe.InitBuffer(inB2, 1, k * n * sizeof(In));
    pipe.InitBuffer(outCO1, 1, m * n * sizeof(Acc));
    GlobalTensor<In> ag, bg;
    GlobalTensor<Out> cg;
    ag.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(a), m * k);
    bg.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(b), k * n);
    cg.SetGlobalBuffer(reinterpret_cast<__gm__ Out*>(c), m * n);

    LocalTensor<In> a1 = inA1.AllocTensor<In>();
    DataCopy(a1, ag, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
    inA1.EnQue(a1);
    LocalTensor<In> b1 = inB1.AllocTensor<In>();
    if (b_transposed)
      DataCopy(b1, bg, Nd2NzParams(1, n, k, 0, k, n, 1, 0));
    else
      DataCopy(b1, bg, Nd2NzParams(1, k, n, 0, n, k, 1, 0));
    inB1.EnQue(b1);

    a1 = inA1.DeQue<In>();
    LocalTensor<In> a2 = inA2.AllocTensor<In>();
    const uint32_t mb = m / 16, kb = k / c0, nb = n / 16;
    for (uint32_t i = 0; i < mb; ++i)  // row block i of A: k/c0 fractals, m/16 apart in NZ
      LoadData(a2[i * 16 * k], a1[i * 16 * c0], LoadData2DParams(0, kb, mb, 0, 0, false, 0));
    inA2.EnQue(a2);
    inA1.FreeTensor(a1);

    b1 = inB1.DeQue<In>();
    LocalTensor<In> b2 = inB2.AllocTensor<In>();
    if (b_transposed) {
      // NZ of B^T (n x k) is already ZN of B, fractal (kb, nb) at kb * nb + nb.
      LoadData(b2, b1, LoadData2DParams(0, kb * nb, 1, 0, 0, false, 0));
    } else {
      for (uint32_t kk = 0; kk < kb; ++kk)  // k block kk of B: n/16 fractals, k/16 apart in NZ
        LoadData(b2[kk * c0 * n], b1[kk * 16 * c0], LoadData2DParams(0, nb, kb, 0, 0, true, 0));
    }
    inB2.EnQue(b2);
    inB1.FreeTensor(b1);

    LocalTensor<Acc> bias2;
    if (with_bias) {
      pipe.InitBuffer(biasC1, 1, n * sizeof(Acc));
      pipe.InitBuffer(biasC2, 1, n * sizeof(Acc));
      GlobalTensor<Acc> biasg;
      biasg.SetGlobalBuffer(reinterpret_cast<__gm__ Acc*>(bias), n);
      LocalTensor<Acc> bias1 = biasC1.AllocTensor<Acc>();
      DataCopy(bias1, biasg, n);
      biasC1.EnQue(bias1);
      bias1 = biasC1.DeQue<Acc>();
      bias2 = biasC2.AllocTensor<Acc>();
      DataCopy(bias2, bias1, n);
      biasC2.EnQue(bias2);
      biasC1.FreeTensor(bias1);
      bias2 = biasC2.DeQue<Acc>();
    }

    a2 = inA2.DeQue<In>();
    b2 = inB2.DeQue<In>();
    LocalTensor<Acc> co1 = outCO1.AllocTensor<Acc>();
    MmadParams p;
    p.m = m;
    p.n = n;
    p.k = k;
    if (with_bias)
      Mmad(co1, a2, b2, bias2, p);
    else
      Mmad(co1, a2, b2, p);
    outCO1.EnQue(co1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    if (with_bias) biasC2.FreeTensor(bias2);

    co1 = outCO1.DeQue<Acc>();
    FixpipeParamsV220 fp;
    fp.nSize = n;
    fp.mSize = m;
    fp.srcStride = m;
    fp.dstStride = n;
    fp.reluEn = relu;
    fp.quantPre = quant;
    float sc = scale;
    uint32_t bits;
    std::memcpy(&bits, &sc, 4);
    fp.deqScalar = bits;
    if (scale_by_flag) {
      fp.deqScalar = 0;
      SetFixpipePreQuantFlag(bits);
    }
    if (atomic == 1) SetAtomicAdd<Out>();
    if (atomic == 2) SetAtomicMax<Out>();
    Fixpipe(cg, co1, fp);
    if (atomic != 0) SetAtomicNone();
    outCO1.FreeTensor(co1);
  }
};

template <typename T>
std::vector<T> random_matrix(size_t count, uint32_t seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(count);
  for (auto& x : v) x = static_cast<T>(d(gen));
  return v;
}

struct shape {
  uint32_t m, n, k;
  uint32_t seed;
};

TEST_SUITE("sim") {
  TEST_CASE("a half matmul through L1, L0A/L0B, Mmad and Fixpipe matches plain C++") {
    for (const shape sh : {shape{16, 16, 16, 1}, shape{32, 48, 64, 2}, shape{64, 32, 96, 3}}) {
      CAPTURE(sh.m);
      CAPTURE(sh.n);
      CAPTURE(sh.k);
      const auto av = random_matrix<half>(size_t{sh.m} * sh.k, sh.seed, -1, 1);
      const auto bv = random_matrix<half>(size_t{sh.k} * sh.n, sh.seed + 10, -1, 1);
      shim_run run;
      half* a = run.gm<half>("a", av.size());
      half* b = run.gm<half>("b", bv.size());
      float* c = run.gm<float>("c", size_t{sh.m} * sh.n);
      std::copy(av.begin(), av.end(), a);
      std::copy(bv.begin(), bv.end(), b);
      cube_matmul<half, float, float> mm{sh.m, sh.n, sh.k};
      const core_trace t = run.run([&] { mm.run(a, b, nullptr, c); });
      for (uint32_t i = 0; i < sh.m; ++i) {
        for (uint32_t j = 0; j < sh.n; ++j) {
          float want = 0;
          for (uint32_t kk = 0; kk < sh.k; ++kk)
            want += static_cast<float>(av[i * sh.k + kk]) * static_cast<float>(bv[kk * sh.n + j]);
          REQUIRE(c[i * sh.n + j] == doctest::Approx(want).epsilon(1e-5));
        }
      }
      // Every pipe of the cube appears, and the queues order them: no race.
      bool seen[pipe_count] = {};
      for (const instruction& in : t.instructions) seen[static_cast<size_t>(in.on)] = true;
      CHECK(seen[static_cast<size_t>(pipe::mte2)]);
      CHECK(seen[static_cast<size_t>(pipe::mte1)]);
      CHECK(seen[static_cast<size_t>(pipe::m)]);
      CHECK(seen[static_cast<size_t>(pipe::fix)]);
      CHECK_FALSE(find_first_race(t).has_value());
    }
  }

  TEST_CASE("a Fixpipe into GM under SetAtomicAdd or SetAtomicMax accumulates onto what GM holds") {
    for (const shape sh : {shape{16, 16, 16, 4}, shape{32, 48, 64, 5}, shape{64, 32, 96, 6}}) {
      CAPTURE(sh.m);
      const auto av = random_matrix<half>(size_t{sh.m} * sh.k, sh.seed, -1, 1);
      const auto bv = random_matrix<half>(size_t{sh.k} * sh.n, sh.seed + 10, -1, 1);
      const auto dv = random_matrix<float>(size_t{sh.m} * sh.n, sh.seed + 20, -2, 2);
      for (int atomic = 0; atomic < 3; ++atomic) {  // 0: the plain Fixpipe overwrites
        CAPTURE(atomic);
        shim_run run;
        half* a = run.gm<half>("a", av.size());
        half* b = run.gm<half>("b", bv.size());
        float* c = run.gm<float>("c", dv.size());
        std::copy(av.begin(), av.end(), a);
        std::copy(bv.begin(), bv.end(), b);
        std::copy(dv.begin(), dv.end(), c);
        cube_matmul<half, float, float> mm{sh.m, sh.n, sh.k};
        mm.atomic = atomic;
        const core_trace t = run.run([&] { mm.run(a, b, nullptr, c); });
        for (uint32_t i = 0; i < sh.m; ++i) {
          for (uint32_t j = 0; j < sh.n; ++j) {
            float product = 0;
            for (uint32_t kk = 0; kk < sh.k; ++kk)
              product +=
                  static_cast<float>(av[i * sh.k + kk]) * static_cast<float>(bv[kk * sh.n + j]);
            const float d = dv[i * sh.n + j];
            const float want = atomic == 1   ? d + product
                               : atomic == 2 ? std::max(d, product)
                                             : product;
            REQUIRE(c[i * sh.n + j] == doctest::Approx(want).epsilon(1e-5));
          }
        }
        const auto fixpipe =
            std::find_if(t.instructions.begin(), t.instructions.end(),
                         [](const instruction& in) { return in.cls == op_class::cube_fixpipe; });
        REQUIRE(fixpipe != t.instructions.end());
        CHECK(fixpipe->accumulates == (atomic != 0));
        CHECK_FALSE(find_first_race(t).has_value());
      }
    }
  }

  TEST_CASE("bfloat16 with a bias from C2 and ReLU in the fixpipe, into half") {
    for (const shape sh : {shape{16, 32, 16, 4}, shape{32, 16, 32, 5}, shape{48, 64, 32, 6}}) {
      const auto av = random_matrix<bfloat16_t>(size_t{sh.m} * sh.k, sh.seed, -1, 1);
      const auto bv = random_matrix<bfloat16_t>(size_t{sh.k} * sh.n, sh.seed + 10, -1, 1);
      const auto biasv = random_matrix<float>(sh.n, sh.seed + 20, -2, 2);
      shim_run run;
      bfloat16_t* a = run.gm<bfloat16_t>("a", av.size());
      bfloat16_t* b = run.gm<bfloat16_t>("b", bv.size());
      float* bias = run.gm<float>("bias", sh.n);
      half* c = run.gm<half>("c", size_t{sh.m} * sh.n);
      std::copy(av.begin(), av.end(), a);
      std::copy(bv.begin(), bv.end(), b);
      std::copy(biasv.begin(), biasv.end(), bias);
      cube_matmul<bfloat16_t, half, float> mm{sh.m, sh.n, sh.k};
      mm.with_bias = true;
      mm.relu = true;
      mm.quant = F322F16;
      run.run([&] { mm.run(a, b, bias, c); });
      for (uint32_t i = 0; i < sh.m; ++i) {
        for (uint32_t j = 0; j < sh.n; ++j) {
          float want = biasv[j];
          for (uint32_t kk = 0; kk < sh.k; ++kk)
            want += static_cast<float>(av[i * sh.k + kk]) * static_cast<float>(bv[kk * sh.n + j]);
          want = std::max(want, 0.0f);
          REQUIRE(static_cast<float>(c[i * sh.n + j]) ==
                  doctest::Approx(testing::round_half(want)).epsilon(1e-3));
        }
      }
    }
  }

  TEST_CASE("int8 x int8 accumulates in int32 and REQ8/DEQF16 quantize on the way out") {
    for (const shape sh : {shape{16, 16, 32, 7}, shape{32, 32, 64, 8}, shape{16, 48, 96, 9}}) {
      std::mt19937 gen(sh.seed);
      std::uniform_int_distribution<int> d(-128, 127);
      std::vector<int8_t> av(size_t{sh.m} * sh.k), btv(size_t{sh.n} * sh.k);
      for (auto& x : av) x = static_cast<int8_t>(d(gen));
      for (auto& x : btv) x = static_cast<int8_t>(d(gen));
      auto want = [&](uint32_t i, uint32_t j) {
        int32_t s = 0;
        for (uint32_t kk = 0; kk < sh.k; ++kk) s += int32_t{av[i * sh.k + kk]} * btv[j * sh.k + kk];
        return s;
      };
      for (QuantMode_t q : {NoQuant, REQ8, DEQF16}) {
        CAPTURE(static_cast<int>(q));
        shim_run run;
        int8_t* a = run.gm<int8_t>("a", av.size());
        int8_t* bt = run.gm<int8_t>("bt", btv.size());
        std::copy(av.begin(), av.end(), a);
        std::copy(btv.begin(), btv.end(), bt);
        const float scale = 1.0f / 512;
        if (q == NoQuant) {
          int32_t* c = run.gm<int32_t>("c", size_t{sh.m} * sh.n);
          cube_matmul<int8_t, int32_t, int32_t> mm{sh.m, sh.n, sh.k};
          mm.b_transposed = true;
          run.run([&] { mm.run(a, bt, nullptr, c); });
          for (uint32_t i = 0; i < sh.m; ++i)
            for (uint32_t j = 0; j < sh.n; ++j) REQUIRE(c[i * sh.n + j] == want(i, j));
        } else if (q == REQ8) {
          int8_t* c = run.gm<int8_t>("c", size_t{sh.m} * sh.n);
          cube_matmul<int8_t, int8_t, int32_t> mm{sh.m, sh.n, sh.k};
          mm.b_transposed = true;
          mm.quant = REQ8;
          mm.scale = scale;
          run.run([&] { mm.run(a, bt, nullptr, c); });
          for (uint32_t i = 0; i < sh.m; ++i) {
            for (uint32_t j = 0; j < sh.n; ++j) {
              const double v =
                  std::nearbyint(std::clamp(want(i, j) * double{scale}, -128.0, 127.0));
              REQUIRE(c[i * sh.n + j] == static_cast<int8_t>(v));
            }
          }
        } else {
          half* c = run.gm<half>("c", size_t{sh.m} * sh.n);
          cube_matmul<int8_t, half, int32_t> mm{sh.m, sh.n, sh.k};
          mm.b_transposed = true;
          mm.quant = DEQF16;
          mm.scale = scale;
          mm.scale_by_flag = true;
          run.run([&] { mm.run(a, bt, nullptr, c); });
          for (uint32_t i = 0; i < sh.m; ++i)
            for (uint32_t j = 0; j < sh.n; ++j)
              REQUIRE(static_cast<float>(c[i * sh.n + j]) ==
                      doctest::Approx(testing::round_half(want(i, j) * scale)).epsilon(1e-3));
        }
      }
    }
  }

  TEST_CASE("Mmad without cmatrixInitVal accumulates into CO1 (K split over two Mmads)") {
    // A as two separate k halves in L0A: C = A0 x B0 + A1 x B1.
    for (const shape sh : {shape{16, 16, 32, 11}, shape{32, 16, 64, 12}, shape{16, 32, 128, 13}}) {
      const auto av = random_matrix<half>(size_t{sh.m} * sh.k, sh.seed, -1, 1);
      const auto bv = random_matrix<half>(size_t{sh.k} * sh.n, sh.seed + 1, -1, 1);
      shim_run run;
      half* a = run.gm<half>("a", av.size());
      half* b = run.gm<half>("b", bv.size());
      float* c = run.gm<float>("c", size_t{sh.m} * sh.n);
      std::copy(av.begin(), av.end(), a);
      std::copy(bv.begin(), bv.end(), b);
      const uint32_t m = sh.m, n = sh.n, k = sh.k, half_k = k / 2;
      run.run([&] {
        TPipe pipe;
        TBuf<TPosition::A1> a1b;
        TBuf<TPosition::B1> b1b;
        TBuf<TPosition::A2> a2b;
        TBuf<TPosition::B2> b2b;
        TBuf<TPosition::CO1> cb;
        pipe.InitBuffer(a1b, m * k * 2);
        pipe.InitBuffer(b1b, k * n * 2);
        pipe.InitBuffer(a2b, m * k * 2);
        pipe.InitBuffer(b2b, k * n * 2);
        pipe.InitBuffer(cb, m * n * 4);
        GlobalTensor<half> ag, bg;
        GlobalTensor<float> cg;
        ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), m * k);
        bg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), k * n);
        cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c), m * n);
        LocalTensor<half> a1 = a1b.Get<half>(), b1 = b1b.Get<half>(), a2 = a2b.Get<half>(),
                          b2 = b2b.Get<half>();
        LocalTensor<float> co1 = cb.Get<float>();
        // Each k half of A as its own m x k/2 NZ matrix in L1.
        DataCopy(a1, ag, Nd2NzParams(2, m, half_k, half_k, k, m, 1, m * half_k));
        DataCopy(b1, bg, Nd2NzParams(1, k, n, 0, n, k, 1, 0));
        SetFlag<HardEvent::MTE2_MTE1>(0);
        WaitFlag<HardEvent::MTE2_MTE1>(0);
        const uint32_t mb = m / 16, kb = k / 16, nb = n / 16, hb = half_k / 16;
        for (uint32_t h = 0; h < 2; ++h)
          for (uint32_t i = 0; i < mb; ++i)
            LoadData(a2[h * m * half_k + i * 16 * half_k], a1[h * m * half_k + i * 256],
                     LoadData2DParams(0, hb, mb, 0, 0, false, 0));
        for (uint32_t kk = 0; kk < kb; ++kk)
          LoadData(b2[kk * 16 * n], b1[kk * 256], LoadData2DParams(0, nb, kb, 0, 0, true, 0));
        SetFlag<HardEvent::MTE1_M>(0);
        WaitFlag<HardEvent::MTE1_M>(0);
        for (uint32_t h = 0; h < 2; ++h) {
          MmadParams p;
          p.m = m;
          p.n = n;
          p.k = half_k;
          p.cmatrixInitVal = h == 0;
          Mmad(co1, a2[h * m * half_k], b2[h * half_k * n], p);
        }
        SetFlag<HardEvent::M_FIX>(0);
        WaitFlag<HardEvent::M_FIX>(0);
        FixpipeParamsV220 fp(n, m, m, n, false);
        Fixpipe(cg, co1, fp);
      });
      for (uint32_t i = 0; i < m; ++i) {
        for (uint32_t j = 0; j < n; ++j) {
          float want = 0;
          for (uint32_t kk = 0; kk < k; ++kk)
            want += static_cast<float>(av[i * k + kk]) * static_cast<float>(bv[kk * n + j]);
          REQUIRE(c[i * n + j] == doctest::Approx(want).epsilon(1e-5));
        }
      }
    }
  }

  TEST_CASE("a LoadData into L0A that the Mmad reads without a flag is a data race") {
    shim_run run;
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::A1> a1b;
      TBuf<TPosition::B1> b1b;
      TBuf<TPosition::A2> a2b;
      TBuf<TPosition::B2> b2b;
      TBuf<TPosition::CO1> cb;
      pipe.InitBuffer(a1b, 512);
      pipe.InitBuffer(b1b, 512);
      pipe.InitBuffer(a2b, 512);
      pipe.InitBuffer(b2b, 512);
      pipe.InitBuffer(cb, 1024);
      LocalTensor<half> a1 = a1b.Get<half>(), b1 = b1b.Get<half>(), a2 = a2b.Get<half>(),
                        b2 = b2b.Get<half>();
      LocalTensor<float> co1 = cb.Get<float>();
      LoadData(a2, a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
      LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
      Mmad(co1, a2, b2, MmadParams(16, 16, 16, false, 0, false, false, false));
    });
    const auto race = find_first_race(t);
    REQUIRE(race.has_value());
    CHECK(race->message.find("MTE1") != std::string::npos);
    CHECK(race->message.find("Mmad") != std::string::npos);
  }

  TEST_CASE("the same kernel with MTE1_M and PipeBarrier<PIPE_ALL> is race-free") {
    shim_run run;
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::A1> a1b;
      TBuf<TPosition::B1> b1b;
      TBuf<TPosition::A2> a2b;
      TBuf<TPosition::B2> b2b;
      TBuf<TPosition::CO1> cb;
      pipe.InitBuffer(a1b, 512);
      pipe.InitBuffer(b1b, 512);
      pipe.InitBuffer(a2b, 512);
      pipe.InitBuffer(b2b, 512);
      pipe.InitBuffer(cb, 1024);
      LocalTensor<half> a1 = a1b.Get<half>(), b1 = b1b.Get<half>(), a2 = a2b.Get<half>(),
                        b2 = b2b.Get<half>();
      LocalTensor<float> co1 = cb.Get<float>();
      LoadData(a2, a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
      LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
      SetFlag<HardEvent::MTE1_M>(0);
      WaitFlag<HardEvent::MTE1_M>(0);
      Mmad(co1, a2, b2, MmadParams(16, 16, 16, false, 0, false, false, false));
      PipeBarrier<PIPE_ALL>();
    });
    CHECK_FALSE(find_first_race(t).has_value());
  }

  TEST_CASE("cube buffers are sized by the profile: L0A overflows past l0a_bytes") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([&] {
                  TPipe pipe;
                  TQue<TPosition::A2, 2> a2;
                  pipe.InitBuffer(a2, 2, 32768);  // 64 KiB: fits
                  TBuf<TPosition::A2> more;
                  pipe.InitBuffer(more, 512);
                });
              },
              &message) == "ub_overflow");
    CHECK(message.find("L0A") != std::string::npos);
    run.launch.hw.l0a_bytes = 131072;
    CHECK(error_kind([&] {
            run.run([&] {
              TPipe pipe;
              TQue<TPosition::A2, 2> a2;
              pipe.InitBuffer(a2, 2, 32768);
              TBuf<TPosition::A2> more;
              pipe.InitBuffer(more, 512);
            });
          }) == "");
  }

  TEST_CASE("cube operands in the wrong memory and undocumented types are refused") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([&] {
                  TPipe pipe;
                  TBuf<TPosition::A1> a1b;
                  TBuf<TPosition::B2> b2b;
                  TBuf<TPosition::CO1> cb;
                  pipe.InitBuffer(a1b, 512);
                  pipe.InitBuffer(b2b, 512);
                  pipe.InitBuffer(cb, 1024);
                  Mmad(cb.Get<float>(), a1b.Get<half>(), b2b.Get<half>(),
                       MmadParams(16, 16, 16, false, 0, false, false, false));
                });
              },
              &message) == "bad_argument");
    CHECK(message.find("L1") != std::string::npos);
    CHECK(error_kind([&] {
            run.run([&] {
              TPipe pipe;
              TBuf<TPosition::A2> a2b;
              TBuf<TPosition::B2> b2b;
              TBuf<TPosition::CO1> cb;
              pipe.InitBuffer(a2b, 512);
              pipe.InitBuffer(b2b, 512);
              pipe.InitBuffer(cb, 1024);
              Mmad(cb.Get<half>(), a2b.Get<half>(), b2b.Get<half>(),
                   MmadParams(16, 16, 16, false, 0, false, false, false));
            });
          }) == "bad_argument");
  }
}

}  // namespace
}  // namespace aopt::sim
