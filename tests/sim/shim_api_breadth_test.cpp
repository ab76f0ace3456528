// The AscendC APIs issue 34 ("API breadth") added to the shim: the DEQSCALE register with the
// instructions that read it (SetDeqScale, Cast int32 -> half, AddDeqRelu), AddRelu's mask/repeat
// forms, TransDataTo5HD, and the host helpers that size the math library's temporary buffers.
// Each is checked against plain C++ on three seeded input sets, traced as one V instruction with
// the UB it reads and writes, and race-checked: a copy-in it reads without synchronisation is a
// data race the hazard detector names.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "npu/sim/runtime/hazard_detector.hpp"
#include "sim/shim_fixture.hpp"
#include "tiling/tiling_api.h"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

// `x` copied in through a VECIN queue, `compute(out, in)` on the UB copies, `out_elems` copied
// back through a VECOUT queue: a kernel written as public samples write them.
template <typename TIn, typename TOut, typename Compute>
std::vector<TOut> run_ub(const std::vector<TIn>& x, uint32_t out_elems, Compute compute,
                         core_trace* trace = nullptr) {
  shim_run run;
  const auto n = static_cast<uint32_t>(x.size());
  TIn* xg = run.gm<TIn>("x", n);
  TOut* zg = run.gm<TOut>("z", out_elems);
  std::memcpy(xg, x.data(), n * sizeof(TIn));
  core_trace t = run.run([&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    GlobalTensor<TIn> xGm;
    GlobalTensor<TOut> zGm;
    xGm.SetGlobalBuffer((__gm__ TIn*)xg, n);
    zGm.SetGlobalBuffer((__gm__ TOut*)zg, out_elems);
    pipe.InitBuffer(inQ, 1, n * sizeof(TIn));
    pipe.InitBuffer(outQ, 1, out_elems * sizeof(TOut));
    LocalTensor<TIn> in = inQ.AllocTensor<TIn>();
    DataCopy(in, xGm, n);
    inQ.EnQue(in);
    in = inQ.DeQue<TIn>();
    LocalTensor<TOut> out = outQ.AllocTensor<TOut>();
    compute(out, in);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<TOut>();
    DataCopy(zGm, out, out_elems);
    outQ.FreeTensor(out);
  });
  if (trace != nullptr) *trace = std::move(t);
  std::vector<TOut> z(out_elems);
  std::memcpy(z.data(), zg, out_elems * sizeof(TOut));
  return z;
}

template <typename T>
std::vector<T> draw_ints(uint64_t seed, uint32_t n, int64_t lo, int64_t hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<T> v(n);
  for (T& e : v) e = static_cast<T>(d(rng));
  return v;
}

std::vector<float> draw_floats(uint64_t seed, uint32_t n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& e : v) e = d(rng);
  return v;
}

const instruction* find_api(const core_trace& t, const std::string& api) {
  for (const instruction& in : t.instructions)
    if (api == in.api) return &in;
  return nullptr;
}

// The API ran as a V instruction of class `cls` over `bytes` bytes that reads and writes UB, and
// the queue-synchronised kernel has no data race.
void check_traced(const core_trace& t, const char* api, op_class cls, uint64_t bytes) {
  INFO(api);
  const instruction* in = find_api(t, api);
  REQUIRE(in != nullptr);
  CHECK(in->on == pipe::v);
  CHECK(in->cls == cls);
  CHECK(in->bytes == bytes);
  CHECK_FALSE(in->reads.empty());
  CHECK_FALSE(in->writes.empty());
  CHECK_FALSE(find_first_race(t).has_value());
}

// A kernel that copies `x` in and runs `op` on it without waiting for the copy: the race the
// hazard detector must report, naming the copy and the API.
template <typename T, typename Op>
void check_unsynchronised_read_races(uint32_t elems, Op op, const char* api) {
  shim_run run;
  T* xg = run.gm<T>("x", elems);
  const core_trace t = run.run([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * elems * sizeof(T));
    GlobalTensor<T> g;
    g.SetGlobalBuffer((__gm__ T*)xg, elems);
    LocalTensor<T> v = buf.Get<T>();
    DataCopy(v, g, elems);
    op(v[elems], v);
  });
  const auto race = find_first_race(t);
  INFO(api);
  REQUIRE(race.has_value());
  CHECK(race->message.find("DataCopy") != std::string::npos);
  CHECK(race->message.find(api) != std::string::npos);
}

float half_of(double v) {
  return static_cast<float>(static_cast<half>(v));
}

TEST_SUITE("sim") {
  TEST_CASE("SetDeqScale scales Cast int32 -> half and AddDeqRelu, count and mask forms") {
    constexpr uint32_t n = 256;
    const float scales[] = {0.5f, 0.3f, 1.75f};
    for (uint64_t seed : {61, 62, 63}) {
      // |x| < 2048 and sums below 4096: every product with a half scale is exact in float.
      const std::vector<int32_t> x = draw_ints<int32_t>(seed, 2 * n, -2000, 2000);
      const half scale = static_cast<half>(scales[seed - 61]);
      core_trace trace;
      const std::vector<half> z = run_ub<int32_t, half>(
          x, 4 * n,
          [&](LocalTensor<half>& z, LocalTensor<int32_t>& x) {
            Cast(z, x, RoundMode::CAST_NONE, n);  // DEQSCALE not set yet: a plain conversion
            SetDeqScale(scale);
            Cast(z[n], x, RoundMode::CAST_RINT, n);
            AddDeqRelu(z[2 * n], x, x[n], static_cast<int32_t>(n));
            Duplicate(z[3 * n], static_cast<half>(7.0f), static_cast<int32_t>(n));
            // 64 int32 lanes a repeat; the half destination advances 4 blocks a repeat.
            const BinaryRepeatParams params(1, 1, 1, 4, 8, 8);
            AddDeqRelu(z[3 * n], x, x[n], 64, 2, params);
            uint64_t evenLanes[2] = {0x5555555555555555ull, 0};
            AddDeqRelu<false>(z[3 * n + 128], x[128], x[n + 128], evenLanes, 2, params);
          },
          &trace);
      const float s = static_cast<float>(scale);
      auto deq_relu = [&](uint32_t i) {
        const float v = static_cast<float>(x[i] + x[n + i]) * s;
        return v > 0 ? half_of(v) : 0.0f;
      };
      for (uint32_t i = 0; i < n; ++i) {
        CHECK(static_cast<float>(z[i]) == static_cast<float>(x[i]));
        CHECK(static_cast<float>(z[n + i]) == half_of(static_cast<float>(x[i]) * s));
        CHECK(static_cast<float>(z[2 * n + i]) == deq_relu(i));
        // isSetMask=false kept the bit mask the call before did not set: the register still
        // holds the continuous mask of 64 lanes, so every lane of both repeats ran.
        CHECK(static_cast<float>(z[3 * n + i]) == deq_relu(i));
      }
      check_traced(trace, "AddDeqRelu", op_class::vec_cast, n * sizeof(int32_t));
    }
    check_unsynchronised_read_races<int32_t>(
        64,
        [](const LocalTensor<int32_t>& out, const LocalTensor<int32_t>& in) {
          AddDeqRelu(out.ReinterpretCast<half>(), in, in, 64);
        },
        "AddDeqRelu");
  }

  TEST_CASE("AddDeqRelu's bit mask runs only the lanes it sets") {
    constexpr uint32_t n = 128;
    for (uint64_t seed : {64, 65, 66}) {
      const std::vector<int32_t> x = draw_ints<int32_t>(seed, 2 * n, -2000, 2000);
      const std::vector<half> z =
          run_ub<int32_t, half>(x, n, [&](LocalTensor<half>& z, LocalTensor<int32_t>& x) {
            SetDeqScale(static_cast<half>(0.25f));
            Duplicate(z, static_cast<half>(7.0f), static_cast<int32_t>(n));
            uint64_t evenLanes[2] = {0x5555555555555555ull, 0};
            AddDeqRelu(z, x, x[n], evenLanes, 2, BinaryRepeatParams(1, 1, 1, 4, 8, 8));
          });
      for (uint32_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(x[i] + x[n + i]) * 0.25f;
        CHECK(static_cast<float>(z[i]) == (i % 2 == 0 ? (v > 0 ? half_of(v) : 0.0f) : 7.0f));
      }
    }
  }

  TEST_CASE("AddRelu's mask/repeat forms match its count form") {
    constexpr uint32_t n = 256;
    for (uint64_t seed : {71, 72, 73}) {
      const std::vector<float> x = draw_floats(seed, 2 * n);
      core_trace trace;
      const std::vector<float> z = run_ub<float, float>(
          x, 3 * n,
          [&](LocalTensor<float>& z, LocalTensor<float>& x) {
            AddRelu(z, x, x[n], 64, 4, BinaryRepeatParams());
            Duplicate(z[n], -5.0f, static_cast<int32_t>(n));
            uint64_t lanes[2] = {0xF0F0F0F0F0F0F0F0ull, 0};
            AddRelu(z[n], x, x[n], lanes, 4, BinaryRepeatParams());
            AddRelu(z[2 * n], x, x[n], static_cast<int32_t>(n));
          },
          &trace);
      for (uint32_t i = 0; i < n; ++i) {
        const float expect = std::max(x[i] + x[n + i], 0.0f);
        CHECK(z[i] == expect);
        CHECK(z[n + i] == (((i % 64) / 4) % 2 == 1 ? expect : -5.0f));
        CHECK(z[2 * n + i] == expect);
      }
      check_traced(trace, "AddRelu", op_class::vec_simple, n * sizeof(float));
    }
  }

  TEST_CASE("TransDataTo5HD transposes 16 blocks of 16-bit, 32-bit and 8-bit elements") {
    for (uint64_t seed : {81, 82, 83}) {
      // 16-bit: two 16 x 16 matrices, one a repeat (the next 16 blocks apart).
      const std::vector<int16_t> a = draw_ints<int16_t>(seed, 512, -30000, 30000);
      core_trace trace;
      const std::vector<int16_t> at = run_ub<int16_t, int16_t>(
          a, 512,
          [](LocalTensor<int16_t>& z, LocalTensor<int16_t>& x) {
            LocalTensor<int16_t> dst[NCHW_CONV_ADDR_LIST_SIZE];
            LocalTensor<int16_t> src[NCHW_CONV_ADDR_LIST_SIZE];
            for (uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
              dst[i] = z[16 * i];
              src[i] = x[16 * i];
            }
            TransDataTo5HD(dst, src, TransDataTo5HDParams(false, false, 2, 16, 16));
          },
          &trace);
      for (uint32_t r = 0; r < 2; ++r)
        for (uint32_t j = 0; j < 16; ++j)
          for (uint32_t i = 0; i < 16; ++i)
            CHECK(at[r * 256 + 16 * j + i] == a[r * 256 + 16 * i + j]);
      check_traced(trace, "TransDataTo5HD", op_class::vec_simple, 1024);

      // 32-bit: element j of blocks 0..7 fills block 2j, of blocks 8..15 block 2j + 1.
      const std::vector<float> f = draw_floats(seed, 128);
      const std::vector<float> ft =
          run_ub<float, float>(f, 128, [](LocalTensor<float>& z, LocalTensor<float>& x) {
            LocalTensor<float> dst[NCHW_CONV_ADDR_LIST_SIZE];
            LocalTensor<float> src[NCHW_CONV_ADDR_LIST_SIZE];
            for (uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
              dst[i] = z[8 * i];
              src[i] = x[8 * i];
            }
            TransDataTo5HDParams params;
            TransDataTo5HD(dst, src, params);
          });
      for (uint32_t j = 0; j < 8; ++j)
        for (uint32_t i = 0; i < 16; ++i) CHECK(ft[(2 * j + i / 8) * 8 + i % 8] == f[8 * i + j]);

      // 8-bit: the low halves, then the high halves, of 16 blocks of 32 bytes.
      const std::vector<uint8_t> b = draw_ints<uint8_t>(seed, 512, 0, 255);
      const std::vector<uint8_t> bt =
          run_ub<uint8_t, uint8_t>(b, 512, [](LocalTensor<uint8_t>& z, LocalTensor<uint8_t>& x) {
            LocalTensor<uint8_t> dst[NCHW_CONV_ADDR_LIST_SIZE];
            LocalTensor<uint8_t> src[NCHW_CONV_ADDR_LIST_SIZE];
            for (uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
              dst[i] = z[32 * i];
              src[i] = x[32 * i];
            }
            TransDataTo5HD(dst, src, TransDataTo5HDParams(false, false, 1, 0, 0));
            TransDataTo5HD(dst, src, TransDataTo5HDParams(true, true, 1, 0, 0));
          });
      for (uint32_t j = 0; j < 16; ++j) {
        for (uint32_t i = 0; i < 16; ++i) {
          CHECK(bt[32 * j + i] == b[32 * i + j]);
          CHECK(bt[32 * j + 16 + i] == b[32 * i + 16 + j]);
        }
      }
    }
    check_unsynchronised_read_races<half>(
        256,
        [](const LocalTensor<half>& out, const LocalTensor<half>& in) {
          LocalTensor<half> dst[NCHW_CONV_ADDR_LIST_SIZE];
          LocalTensor<half> src[NCHW_CONV_ADDR_LIST_SIZE];
          for (uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
            dst[i] = out[16 * i];
            src[i] = in[16 * i];
          }
          TransDataTo5HD(dst, src, TransDataTo5HDParams());
        },
        "TransDataTo5HD");
  }

  TEST_CASE("the math library's tmp-size helpers: min <= max, and the kernel runs with min") {
    const ge::Shape shape(std::vector<int64_t>{1024});
    fe::PlatFormInfos* no_platform = nullptr;
    const platform_ascendc::PlatformAscendC platform(no_platform);
    using max_min = void (*)(const ge::Shape&, const uint32_t, const bool, uint32_t&, uint32_t&);
    using factor = void (*)(const uint32_t, uint32_t&, uint32_t&);
    const max_min elementwise[] = {
        GetSinMaxMinTmpSize,   GetCosMaxMinTmpSize,   GetTanMaxMinTmpSize,
        GetTanhMaxMinTmpSize,  GetAsinMaxMinTmpSize,  GetAcosMaxMinTmpSize,
        GetAtanMaxMinTmpSize,  GetSinhMaxMinTmpSize,  GetCoshMaxMinTmpSize,
        GetAtanhMaxMinTmpSize, GetErfMaxMinTmpSize,   GetErfcMaxMinTmpSize,
        GetSignMaxMinTmpSize,  GetFracMaxMinTmpSize,  GetFloorMaxMinTmpSize,
        GetCeilMaxMinTmpSize,  GetTruncMaxMinTmpSize, GetLogMaxMinTmpSize,
        GetLog2MaxMinTmpSize,  GetLog10MaxMinTmpSize, GetSigmoidMaxMinTmpSize,
        GetClampMaxMinTmpSize};
    const factor factors[] = {
        GetSinTmpBufferFactorSize,   GetCosTmpBufferFactorSize,   GetTanTmpBufferFactorSize,
        GetTanhTmpBufferFactorSize,  GetAsinTmpBufferFactorSize,  GetAcosTmpBufferFactorSize,
        GetAtanTmpBufferFactorSize,  GetSinhTmpBufferFactorSize,  GetCoshTmpBufferFactorSize,
        GetAtanhTmpBufferFactorSize, GetErfTmpBufferFactorSize,   GetErfcTmpBufferFactorSize,
        GetSignTmpBufferFactorSize,  GetFracTmpBufferFactorSize,  GetFloorTmpBufferFactorSize,
        GetCeilTmpBufferFactorSize,  GetTruncTmpBufferFactorSize, GetLogTmpBufferFactorSize,
        GetLog2TmpBufferFactorSize,  GetLog10TmpBufferFactorSize, GetSigmoidTmpBufferFactorSize,
        GetClampTmpBufferFactorSize, GetMeanTmpBufferFactorSize};
    std::vector<std::pair<uint32_t, uint32_t>> sizes;  // (max, min) of every helper
    for (const max_min f : elementwise) {
      uint32_t maxValue = 0, minValue = 0;
      f(shape, sizeof(float), false, maxValue, minValue);
      sizes.emplace_back(maxValue, minValue);
    }
    uint32_t maxValue = 0, minValue = 0;
    GetRoundMaxMinTmpSize(platform, shape, sizeof(float), false, maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    GetPowerMaxMinTmpSize(shape, shape, false, sizeof(float), false, maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    GetCumSumMaxMinTmpSize(ge::Shape(std::vector<int64_t>{32, 32}), sizeof(float), true, false,
                           maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    GetSumMaxMinTmpSize(61, sizeof(float), false, maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    GetMeanMaxMinTmpSize(61, sizeof(half), sizeof(float), false, maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    GetBroadCastMaxMinTmpSize(platform, ge::Shape(std::vector<int64_t>{1024, 1}),
                              ge::Shape(std::vector<int64_t>{1024, 16}), sizeof(half), false,
                              maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    GetGeluMaxMinTmpSize(shape, sizeof(half), maxValue, minValue);
    sizes.emplace_back(maxValue, minValue);
    sizes.emplace_back(GetGeluMaxTmpSize(shape, sizeof(half)), GetGeluMinTmpSize(shape, 2));
    GetUnPadMaxMinTmpSize(platform, ge::Shape(std::vector<int64_t>{4, 64}), sizeof(float), maxValue,
                          minValue);
    sizes.emplace_back(maxValue, minValue);
    const uint32_t sortTmp = GetSortTmpSize(platform, 1024, sizeof(float));
    sizes.emplace_back(sortTmp, sortTmp);
    for (const auto& [max, min] : sizes) {
      CHECK(min <= max);
      CHECK(min == 32);  // one data block: the kernels use none, InitBuffer refuses 0 bytes
    }
    for (const factor f : factors) {
      uint32_t maxLiveNodeCount = 1, extraBuf = 0;
      f(sizeof(float), maxLiveNodeCount, extraBuf);
      CHECK(maxLiveNodeCount == 0);  // the tmp size does not grow with the elements
      CHECK(extraBuf == 32);
    }
    uint32_t maxLiveNodeCount = 1, extraBuf = 0;
    GetRoundTmpBufferFactorSize(platform, sizeof(float), maxLiveNodeCount, extraBuf);
    CHECK(extraBuf == 32);

    // A kernel that gives Sin and Atan exactly minValue bytes of tmp buffer computes them.
    GetSinMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
    for (uint64_t seed : {91, 92, 93}) {
      const std::vector<float> x = draw_floats(seed, 256);
      const std::vector<float> z =
          run_ub<float, float>(x, 512, [&](LocalTensor<float>& z, LocalTensor<float>& x) {
            TBuf<TPosition::VECCALC> tmp;
            GetTPipePtr()->InitBuffer(tmp, minValue);
            Sin(z, x, tmp.Get<uint8_t>(), 256);
            Atan(z[256], x, tmp.Get<uint8_t>(), 256);
          });
      for (uint32_t i = 0; i < 256; ++i) {
        CHECK(z[i] == doctest::Approx(std::sin(x[i])));
        CHECK(z[256 + i] == doctest::Approx(std::atan(x[i])));
      }
    }
  }
}

}  // namespace
}  // namespace aopt::sim
