// The high-level Matmul API of the shim (lib/matmul_intf.h) and its host tiling
// (matmul_tiling::MultiCoreMatmulTiling) against plain C++: GetTiling's base tiles fit L0 and the
// cores, IterateAll and Iterate/GetTensorC give the product on three shapes (tails included),
// with a bias, with A or B transposed, added to C by enAtomic, and into a local tensor.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "lib/matmul_intf.h"
#include "npu/sim/runtime/hazard_detector.hpp"
#include "sim/shim_fixture.hpp"
#include "tiling/tiling_api.h"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

constexpr MatmulConfig kNormalConfig = GetNormalConfig();
// The other builders, with and without their documented options, make configs Matmul takes.
constexpr MatmulConfig kIBShareConfig = GetIBShareNormConfig(false, false, false);
constexpr MatmulConfig kMdlConfig = GetMDLConfig();

optiling::TCubeTiling host_tiling(
    int32_t m, int32_t n, int32_t k, int32_t dim, bool bias,
    matmul_tiling::DataType in = matmul_tiling::DataType::DT_FLOAT16) {
  fe::PlatFormInfos info;
  platform_ascendc::PlatformAscendC platform(&info);
  matmul_tiling::MultiCoreMatmulTiling t(platform);
  t.SetDim(dim);
  t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, in);
  t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, in);
  t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
             matmul_tiling::DataType::DT_FLOAT);
  t.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                matmul_tiling::DataType::DT_FLOAT);
  t.SetShape(m, n, k);
  t.SetOrgShape(m, n, k);
  t.SetBias(bias);
  t.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling tiling;
  REQUIRE(t.GetTiling(tiling) == 0);
  return tiling;
}

// Checks each element of the m x n result `out` against start(i, j) plus the sum over kk of
// a(i, kk) * b(kk, j), with the operands as laid out in GM.
template <typename Start, typename A, typename B>
void check_product(const float* out, int32_t m, int32_t n, int32_t k, Start start, A a, B b) {
  for (int32_t i = 0; i < m; ++i) {
    for (int32_t j = 0; j < n; ++j) {
      float want = start(i, j);
      for (int32_t kk = 0; kk < k; ++kk)
        want += static_cast<float>(a(i, kk)) * static_cast<float>(b(kk, j));
      REQUIRE(out[size_t(i) * n + j] == doctest::Approx(want).epsilon(1e-5));
    }
  }
}

// Whether an instruction of `t` came from `api`.
bool traces_api(const core_trace& t, const std::string& api) {
  for (const instruction& in : t.instructions)
    if (api == in.api) return true;
  return false;
}

struct case_shape {
  int32_t m, n, k, dim;
  uint32_t seed;
};

TEST_SUITE("sim") {
  TEST_CASE("GetTiling picks base tiles that fit L0 and split the shape over the cores") {
    for (const case_shape c : {case_shape{512, 1024, 512, 8, 0}, case_shape{64, 64, 64, 1, 0},
                               case_shape{1000, 200, 300, 4, 0}}) {
      const optiling::TCubeTiling t = host_tiling(c.m, c.n, c.k, c.dim, false);
      CAPTURE(c.m);
      CHECK(t.baseM % 16 == 0);
      CHECK(t.baseN % 16 == 0);
      CHECK(t.baseK % 16 == 0);
      CHECK(int64_t{t.baseM} * t.baseN * 4 <= 131072);           // L0C
      CHECK(int64_t{t.baseM} * t.baseK * 2 * t.dbL0A <= 65536);  // L0A
      CHECK(int64_t{t.baseK} * t.baseN * 2 * t.dbL0B <= 65536);  // L0B
      CHECK(t.usedCoreNum <= c.dim);
      const int32_t blocks_m = (c.m + t.singleCoreM - 1) / t.singleCoreM;
      const int32_t blocks_n = (c.n + t.singleCoreN - 1) / t.singleCoreN;
      CHECK(blocks_m * blocks_n <= c.dim);
    }
    // A larger L0C admits larger base tiles only when SetBufferSpace allows it.
    const optiling::TCubeTiling big = host_tiling(512, 512, 512, 1, false);
    CHECK(int64_t{big.baseM} * big.baseN >= 128 * 128);
  }

  TEST_CASE("IterateAll and Iterate/GetTensorC compute the product, tails and bias included") {
    for (const case_shape c : {case_shape{64, 64, 64, 1, 1}, case_shape{48, 80, 96, 1, 2},
                               case_shape{130, 72, 200, 1, 3}}) {
      CAPTURE(c.m);
      for (int form = 0; form < 3; ++form) {  // 0: IterateAll, 1: Iterate + GetTensorC, 2: + bias
        CAPTURE(form);
        const bool bias = form == 2;
        const optiling::TCubeTiling tiling = host_tiling(c.m, c.n, c.k, 1, bias);
        std::mt19937 gen(c.seed);
        std::uniform_real_distribution<float> d(-1, 1);
        std::vector<half> av(size_t(c.m) * c.k), bv(size_t(c.k) * c.n);
        std::vector<float> biasv(c.n);
        for (auto& x : av) x = static_cast<half>(d(gen));
        for (auto& x : bv) x = static_cast<half>(d(gen));
        for (auto& x : biasv) x = d(gen);
        shim_run run;
        half* a = run.gm<half>("a", av.size());
        half* b = run.gm<half>("b", bv.size());
        float* bg = run.gm<float>("bias", c.n + 64);
        float* out = run.gm<float>("c", size_t(c.m) * c.n);
        std::copy(av.begin(), av.end(), a);
        std::copy(bv.begin(), bv.end(), b);
        std::copy(biasv.begin(), biasv.end(), bg);
        const core_trace trace = run.run([&] {
          using AT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
          using CT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
          TPipe pipe;
          // The config as kernels declare it (an AscendC name built by GetNormalConfig).
          matmul::Matmul<AT, AT, CT, CT, kNormalConfig> mm;
          REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
          GlobalTensor<half> ag, bgm;
          GlobalTensor<float> cg, biasg;
          ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), av.size());
          bgm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), bv.size());
          cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), size_t(c.m) * c.n);
          biasg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bg), c.n + 64);
          mm.SetTensorA(ag);
          mm.SetTensorB(bgm);
          if (bias) mm.SetBias(biasg);
          if (form == 0) {
            mm.IterateAll(cg);
          } else {
            while (mm.Iterate()) mm.GetTensorC(cg);
          }
          mm.End();
        });
        check_product(
            out, c.m, c.n, c.k, [&](int32_t, int32_t j) { return bias ? biasv[j] : 0.0f; },
            [&](int32_t i, int32_t kk) { return av[size_t(i) * c.k + kk]; },
            [&](int32_t kk, int32_t j) { return bv[size_t(kk) * c.n + j]; });
        CHECK_FALSE(find_first_race(trace).has_value());
      }
    }
  }

  TEST_CASE("a transposed A, by its MatmulType or by SetTensorA, with B either way") {
    for (const case_shape c : {case_shape{64, 64, 64, 1, 4}, case_shape{48, 80, 96, 1, 5},
                               case_shape{130, 72, 200, 1, 6}}) {
      CAPTURE(c.m);
      for (int form = 0; form < 3; ++form) {  // 0: MatmulType, 1: SetTensorA, 2: + B transposed
        CAPTURE(form);
        const optiling::TCubeTiling tiling = host_tiling(c.m, c.n, c.k, 1, false);
        std::mt19937 gen(c.seed);
        std::uniform_real_distribution<float> d(-1, 1);
        // A^T is K x M, B (form 2: B^T, N x K) as laid out in GM.
        std::vector<half> atv(size_t(c.k) * c.m), bv(size_t(c.k) * c.n);
        for (auto& x : atv) x = static_cast<half>(d(gen));
        for (auto& x : bv) x = static_cast<half>(d(gen));
        const bool b_trans = form == 2;
        shim_run run;
        half* at = run.gm<half>("at", atv.size());
        half* b = run.gm<half>("b", bv.size());
        float* out = run.gm<float>("c", size_t(c.m) * c.n);
        std::copy(atv.begin(), atv.end(), at);
        std::copy(bv.begin(), bv.end(), b);
        const core_trace trace = run.run([&] {
          using AT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
          using AN = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
          using CT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
          TPipe pipe;
          GlobalTensor<half> ag, bgm;
          GlobalTensor<float> cg;
          ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(at), atv.size());
          bgm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), bv.size());
          cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), size_t(c.m) * c.n);
          if (form == 0) {
            matmul::Matmul<AT, AN, CT, CT, kIBShareConfig> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
            mm.SetTensorA(ag);
            mm.SetTensorB(bgm);
            mm.IterateAll(cg);
          } else {
            matmul::Matmul<AN, AN, CT, CT, kMdlConfig> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
            mm.SetTensorA(ag, true);
            mm.SetTensorB(bgm, b_trans);
            while (mm.Iterate()) mm.GetTensorC(cg);
          }
        });
        check_product(
            out, c.m, c.n, c.k, [](int32_t, int32_t) { return 0.0f; },
            [&](int32_t i, int32_t kk) { return atv[size_t(kk) * c.m + i]; },
            [&](int32_t kk, int32_t j) {
              return b_trans ? bv[size_t(j) * c.k + kk] : bv[size_t(kk) * c.n + j];
            });
        CHECK_FALSE(find_first_race(trace).has_value());
      }
    }
  }

  TEST_CASE("float operands: A transposed by its MatmulType or SetTensorA, B either way") {
    for (const case_shape c : {case_shape{64, 64, 64, 1, 14}, case_shape{48, 80, 96, 1, 15},
                               case_shape{130, 72, 200, 1, 16}, case_shape{20, 24, 12, 1, 17},
                               case_shape{130, 40, 8, 1, 18}}) {
      CAPTURE(c.m);
      for (int form = 0; form < 4; ++form) {  // A^T by type, A^T by call, + B^T, A plain
        CAPTURE(form);
        const optiling::TCubeTiling tiling =
            host_tiling(c.m, c.n, c.k, 1, false, matmul_tiling::DataType::DT_FLOAT);
        std::mt19937 gen(c.seed);
        std::uniform_real_distribution<float> d(-1, 1);
        const bool a_trans = form != 3;
        const bool b_trans = form == 2;
        // A (form 3) or A^T (K x M); B (K x N) or B^T (N x K), as laid out in GM.
        std::vector<float> av(size_t(c.k) * c.m), bv(size_t(c.k) * c.n);
        for (auto& x : av) x = d(gen);
        for (auto& x : bv) x = d(gen);
        shim_run run;
        float* a = run.gm<float>("a", av.size());
        float* b = run.gm<float>("b", bv.size());
        float* out = run.gm<float>("c", size_t(c.m) * c.n);
        std::copy(av.begin(), av.end(), a);
        std::copy(bv.begin(), bv.end(), b);
        const core_trace trace = run.run([&] {
          using AT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float, true>;
          using AN = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
          TPipe pipe;
          GlobalTensor<float> ag, bgm, cg;
          ag.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(a), av.size());
          bgm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(b), bv.size());
          cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), size_t(c.m) * c.n);
          if (form == 0) {
            matmul::Matmul<AT, AN, AN> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
            mm.SetTensorA(ag);
            mm.SetTensorB(bgm);
            mm.IterateAll(cg);
          } else {
            matmul::Matmul<AN, AN, AN> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
            mm.SetTensorA(ag, a_trans);
            mm.SetTensorB(bgm, b_trans);
            while (mm.Iterate()) mm.GetTensorC(cg);
          }
        });
        check_product(
            out, c.m, c.n, c.k, [](int32_t, int32_t) { return 0.0f; },
            [&](int32_t i, int32_t kk) {
              return a_trans ? av[size_t(kk) * c.m + i] : av[size_t(i) * c.k + kk];
            },
            [&](int32_t kk, int32_t j) {
              return b_trans ? bv[size_t(j) * c.k + kk] : bv[size_t(kk) * c.n + j];
            });
        CHECK_FALSE(find_first_race(trace).has_value());
        CHECK(traces_api(trace, "Matmul (transposing load)") == (a_trans || !b_trans));
      }
    }
  }

  TEST_CASE("enAtomic 1 adds the product to C in GM, as a fused matmul + add does") {
    for (const case_shape c : {case_shape{64, 64, 64, 1, 7}, case_shape{48, 80, 96, 1, 8},
                               case_shape{130, 72, 200, 1, 9}}) {
      CAPTURE(c.m);
      const optiling::TCubeTiling tiling = host_tiling(c.m, c.n, c.k, 1, false);
      std::mt19937 gen(c.seed);
      std::uniform_real_distribution<float> d(-1, 1);
      std::vector<half> av(size_t(c.m) * c.k), bv(size_t(c.k) * c.n);
      std::vector<float> dv(size_t(c.m) * c.n);
      for (auto& x : av) x = static_cast<half>(d(gen));
      for (auto& x : bv) x = static_cast<half>(d(gen));
      for (auto& x : dv) x = d(gen);
      for (const bool by_iterate : {false, true}) {
        shim_run run;
        half* a = run.gm<half>("a", av.size());
        half* b = run.gm<half>("b", bv.size());
        float* out = run.gm<float>("c", dv.size());
        std::copy(av.begin(), av.end(), a);
        std::copy(bv.begin(), bv.end(), b);
        std::copy(dv.begin(), dv.end(), out);
        run.run([&] {
          using AT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
          using CT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
          TPipe pipe;
          matmul::Matmul<AT, AT, CT> mm;
          REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
          GlobalTensor<half> ag, bgm;
          GlobalTensor<float> cg;
          ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), av.size());
          bgm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), bv.size());
          cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), dv.size());
          mm.SetTensorA(ag);
          mm.SetTensorB(bgm);
          if (by_iterate) {
            while (mm.Iterate()) mm.GetTensorC(cg, 1);
          } else {
            mm.IterateAll(cg, 1);
          }
        });
        check_product(
            out, c.m, c.n, c.k, [&](int32_t i, int32_t j) { return dv[size_t(i) * c.n + j]; },
            [&](int32_t i, int32_t kk) { return av[size_t(i) * c.k + kk]; },
            [&](int32_t kk, int32_t j) { return bv[size_t(kk) * c.n + j]; });
      }
    }
  }

  TEST_CASE("a transposed B and GetTensorC into a local tensor") {
    const int32_t m = 32, n = 64, k = 64;
    const optiling::TCubeTiling tiling = host_tiling(m, n, k, 1, false);
    std::vector<half> av(m * k), btv(n * k);
    for (int i = 0; i < m * k; ++i) av[i] = static_cast<half>((i % 13) * 0.0625f - 0.3f);
    for (int i = 0; i < n * k; ++i) btv[i] = static_cast<half>((i % 7) * 0.125f - 0.4f);
    shim_run run;
    half* a = run.gm<half>("a", av.size());
    half* bt = run.gm<half>("bt", btv.size());
    float* out = run.gm<float>("c", size_t(m) * n);
    std::copy(av.begin(), av.end(), a);
    std::copy(btv.begin(), btv.end(), bt);
    run.run([&] {
      using AT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
      using BT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
      using CT = matmul::MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
      TPipe pipe;
      TQue<TPosition::VECIN, 1> qout;
      pipe.InitBuffer(qout, 1, tiling.baseM * tiling.baseN * 4);
      matmul::Matmul<AT, BT, CT> mm;
      REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
      GlobalTensor<half> ag, bg;
      GlobalTensor<float> cg;
      ag.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), av.size());
      bg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(bt), btv.size());
      cg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), size_t(m) * n);
      mm.SetTensorA(ag);
      mm.SetTensorB(bg, true);
      REQUIRE(mm.Iterate());  // one block: the whole 32 x 64 result
      LocalTensor<float> local = qout.AllocTensor<float>();
      mm.GetTensorC(local, 0, true);
      qout.EnQue(local);
      local = qout.DeQue<float>();
      DataCopyParams rows(m, n * 4 / 32, (tiling.baseN - n) * 4 / 32, 0);
      DataCopy(cg, local, rows);
      qout.FreeTensor(local);
      CHECK_FALSE(mm.Iterate());
    });
    check_product(
        out, m, n, k, [](int32_t, int32_t) { return 0.0f; },
        [&](int32_t i, int32_t kk) { return av[size_t(i) * k + kk]; },
        [&](int32_t kk, int32_t j) { return btv[size_t(j) * k + kk]; });
  }
}

}  // namespace
}  // namespace aopt::sim
