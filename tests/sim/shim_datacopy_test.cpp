// DataCopy and DataCopyPad of the shim: GM <-> UB in count and DataCopyParams form, UB -> UB,
// padding of unaligned bursts, exact tails on the way out, and atomic accumulation.
#include <doctest/doctest.h>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

TEST_SUITE("sim") {
  TEST_CASE("DataCopy in count form moves GM to UB and back") {
    shim_run run;
    float* x = run.gm<float>("x", 256);
    float* y = run.gm<float>("y", 256);
    for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i) + 0.5f;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 1024);
      GlobalTensor<float> xg;
      GlobalTensor<float> yg;
      xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 256);
      yg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), 256);
      LocalTensor<float> t = buf.Get<float>();
      DataCopy(t, xg[64], 128);
      DataCopy(yg, t, 128);
    });
    for (int i = 0; i < 128; ++i) CHECK(y[i] == x[64 + i]);
    CHECK(y[128] == 0.0f);
  }

  TEST_CASE("DataCopyParams copies strided bursts in 32-byte blocks") {
    shim_run run;
    int32_t* x = run.gm<int32_t>("x", 256);
    int32_t* y = run.gm<int32_t>("y", 256);
    for (int i = 0; i < 256; ++i) x[i] = i;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 1024);
      GlobalTensor<int32_t> xg;
      GlobalTensor<int32_t> yg;
      xg.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(x), 256);
      yg.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(y), 256);
      LocalTensor<int32_t> t = buf.Get<int32_t>();
      // 4 bursts of 1 block (8 ints), skipping 1 block in GM, packed in UB.
      DataCopy(t, xg, DataCopyParams(4, 1, 1, 0));
      // Out again with a 2-block gap in GM.
      DataCopy(yg, t, DataCopyParams{4, 1, 0, 2});
    });
    for (int burst = 0; burst < 4; ++burst) {
      for (int k = 0; k < 8; ++k) {
        CHECK(y[burst * 24 + k] == burst * 16 + k);
        CHECK(y[burst * 24 + 8 + k] == 0);
      }
    }
  }

  TEST_CASE("DataCopy between UB tensors runs with strides") {
    shim_run run;
    std::vector<int16_t> got;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> a;
      TBuf<TPosition::VECCALC> b;
      pipe.InitBuffer(a, 512);
      pipe.InitBuffer(b, 512);
      LocalTensor<int16_t> src = a.Get<int16_t>();
      LocalTensor<int16_t> dst = b.Get<int16_t>();
      for (uint32_t i = 0; i < 256; ++i) src.SetValue(i, static_cast<int16_t>(i));
      DataCopy(dst, src, 64);
      got.push_back(dst.GetValue(63));
      DataCopy(dst, src, DataCopyParams{2, 1, 1, 0});  // blocks 0 and 2 of src into 0 and 1
      got.push_back(dst.GetValue(16));
    });
    CHECK(got == std::vector<int16_t>{63, 32});
  }

  TEST_CASE("DataCopyPad reads unaligned rows into 32-byte aligned UB rows with padding") {
    shim_run run;
    half* x = run.gm<half>("x", 64);
    half* y = run.gm<half>("y", 64);
    for (int i = 0; i < 64; ++i) x[i] = static_cast<half>(i);
    std::vector<float> row0;
    std::vector<float> row1;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 1024);
      GlobalTensor<half> xg;
      GlobalTensor<half> yg;
      xg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), 64);
      yg.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), 64);
      LocalTensor<half> t = buf.Get<half>();
      // 2 rows of 10 halves (20 bytes), 4 halves apart in GM; each UB row: 1 pad, 10 values,
      // 2 pads = 26 bytes -> 32.
      DataCopyPad(t, xg, DataCopyExtParams{2, 20, 8, 0, 0},
                  DataCopyPadExtParams<half>{true, 1, 2, static_cast<half>(-1)});
      for (uint32_t i = 0; i < 13; ++i) {
        row0.push_back(t.GetValue(i));
        row1.push_back(t.GetValue(16 + i));
      }
      // Out: exactly 10 halves of each UB row (starting after the pad), 2 halves apart in GM.
      DataCopyPad(yg, t[16], DataCopyExtParams{1, 20, 0, 0, 0});
      DataCopyPad(yg[12], t, DataCopyParams{1, 6, 0, 0});
    });
    CHECK(row0 == std::vector<float>{-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1});
    CHECK(row1 == std::vector<float>{-1, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, -1, -1});
    CHECK(static_cast<float>(y[0]) == -1.0f);
    CHECK(static_cast<float>(y[9]) == 22.0f);
    CHECK(static_cast<float>(y[10]) == 0.0f);  // untouched: the burst was exactly 20 bytes
    CHECK(static_cast<float>(y[12]) == -1.0f);
    CHECK(static_cast<float>(y[14]) == 1.0f);
    CHECK(static_cast<float>(y[15]) == 0.0f);
  }

  TEST_CASE("DataCopyPad without isPad pads with the SetPadValue value") {
    shim_run run;
    float* x = run.gm<float>("x", 16);
    for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i + 1);
    std::vector<float> got;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 64);
      GlobalTensor<float> xg;
      xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 16);
      LocalTensor<float> t = buf.Get<float>();
      SetPadValue(37.0f);
      DataCopyPad(t, xg, DataCopyExtParams{1, 12, 0, 0, 0},
                  DataCopyPadExtParams<float>{false, 0, 2, 0.0f});
      for (uint32_t i = 0; i < 5; ++i) got.push_back(t.GetValue(i));
    });
    CHECK(got == std::vector<float>{1, 2, 3, 37, 37});
  }

  TEST_CASE("SetAtomicAdd makes UB -> GM copies accumulate, as across cores") {
    shim_run run;
    run.launch.block_num = 3;
    float* out = run.gm<float>("out", 8);
    for (uint32_t block = 0; block < 3; ++block) {
      run.run(
          [&] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 32);
            LocalTensor<float> t = buf.Get<float>();
            Duplicate(t, static_cast<float>(GetBlockIdx() + 1), 8);
            GlobalTensor<float> g;
            g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), 8);
            SetAtomicAdd<float>();
            DataCopy(g, t, 8);
            SetAtomicNone();
          },
          block);
    }
    for (int i = 0; i < 8; ++i) CHECK(out[i] == 6.0f);
  }
}

}  // namespace
}  // namespace aopt::sim
