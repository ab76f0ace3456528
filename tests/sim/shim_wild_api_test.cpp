// The kernel APIs real operators call that the shim gained for issue 34 (scalar helpers and
// constants, kernel_utils.h / kernel_tiling.h names, the math library's Atan/Sign/Log2/Log10/
// Fmod/AddRelu/Sum/Mean/BroadCast/UnPad/Extract, whole-tensor Sin/Cos, the LocalTensor
// operators, TBuf::AllocTensor, GlobalTensor::operator(), the braced DataCopyPad), each checked
// against plain C++ on three seeded input sets, and each traced as one V instruction with its
// operands' UB reads and writes (what the race detector and the timing model see).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator_intf.h"
#include "kernel_tiling/kernel_tiling.h"
#include "kernel_tpipe_impl.h"
#include "kernel_utils.h"
#include "register/tilingdata_base.h"
#include "sim/shim_fixture.hpp"
#include "tiling/tiling_api.h"

// A user's tiling class holding the UnPad library tiling, as DrivingSDK's assign_score_withk
// declares it.
namespace optiling {
BEGIN_TILING_DATA_DEF(WildUnPadTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF_STRUCT(UnPadTiling, unpadTilingData);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

constexpr uint32_t N = 256;  // elements per operand

// x and y in, `Outputs` rows of N out, through TQue buffers as public samples write kernels.
template <typename T, uint32_t Outputs, typename Compute>
std::vector<T> run_tile(const std::vector<T>& x, const std::vector<T>& y, Compute compute,
                        core_trace* trace = nullptr) {
  shim_run run;
  T* xg = run.gm<T>("x", N);
  T* yg = run.gm<T>("y", N);
  T* zg = run.gm<T>("z", N * Outputs);
  std::copy(x.begin(), x.end(), xg);
  std::copy(y.begin(), y.end(), yg);
  core_trace t = run.run([&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inX, inY;
    TQue<QuePosition::VECOUT, 1> outZ;
    GlobalTensor<T> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)xg, N);
    yGm.SetGlobalBuffer((__gm__ T*)yg, N);
    zGm.SetGlobalBuffer((__gm__ T*)zg, N * Outputs);
    pipe.InitBuffer(inX, 1, N * sizeof(T));
    pipe.InitBuffer(inY, 1, N * sizeof(T));
    pipe.InitBuffer(outZ, 1, N * Outputs * sizeof(T));
    LocalTensor<T> xl = inX.AllocTensor<T>();
    LocalTensor<T> yl = inY.AllocTensor<T>();
    DataCopy(xl, xGm, N);
    DataCopy(yl, yGm, N);
    inX.EnQue(xl);
    inY.EnQue(yl);
    xl = inX.DeQue<T>();
    yl = inY.DeQue<T>();
    LocalTensor<T> zl = outZ.AllocTensor<T>();
    compute(zl, xl, yl);
    outZ.EnQue(zl);
    inX.FreeTensor(xl);
    inY.FreeTensor(yl);
    zl = outZ.DeQue<T>();
    DataCopy(zGm, zl, N * Outputs);
    outZ.FreeTensor(zl);
  });
  if (trace != nullptr) *trace = std::move(t);
  return std::vector<T>(zg, zg + N * Outputs);
}

template <typename T>
std::vector<T> draw(uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(N);
  for (T& e : v) e = static_cast<T>(d(rng));
  return v;
}

const instruction* find_api(const core_trace& t, const std::string& api) {
  for (const instruction& in : t.instructions)
    if (api == in.api) return &in;
  return nullptr;
}

// The API ran as one V instruction of class `cls` that reads and writes UB.
void check_traced(const core_trace& t, const char* api, op_class cls) {
  INFO(api);
  const instruction* in = find_api(t, api);
  REQUIRE(in != nullptr);
  CHECK(in->on == pipe::v);
  CHECK(in->cls == cls);
  CHECK(in->bytes > 0);
  CHECK_FALSE(in->reads.empty());
  CHECK_FALSE(in->writes.empty());
}

TEST_SUITE("sim") {
  TEST_CASE("scalar helpers: DivCeil/Ceil/AlignUp with mixed types, bit scans, ScalarCast") {
    for (uint64_t seed : {1, 2, 3}) {
      std::mt19937_64 rng(seed);
      for (int k = 0; k < 200; ++k) {
        const uint64_t a = rng() % 100000;
        const int b = static_cast<int>(rng() % 64) + 1;
        const uint32_t a32 = static_cast<uint32_t>(a);
        CHECK(DivCeil(a, b) == (a + static_cast<uint64_t>(b) - 1) / static_cast<uint64_t>(b));
        CHECK(Ceil(a32, b) == (a32 + static_cast<uint32_t>(b) - 1) / static_cast<uint32_t>(b));
        CHECK(AlignUp(a32, static_cast<uint32_t>(b)) % static_cast<uint32_t>(b) == 0);
        CHECK(AlignUp(a32, b) >= a32);
        CHECK(AlignUp(a32, b) < a32 + static_cast<uint32_t>(b));
        const uint64_t bits = rng();
        int64_t first_one = -1, first_zero = -1;
        for (int i = 63; i >= 0; --i) {
          if ((bits >> i) & 1) first_one = i;
          if (!((bits >> i) & 1)) first_zero = i;
        }
        CHECK(ScalarGetSFFValue<1>(bits) == first_one);
        CHECK(ScalarGetSFFValue<0>(bits) == first_zero);
        const int64_t idx = static_cast<int64_t>(rng() % 64);
        CHECK(sbitset0(bits, idx) == (bits & ~(uint64_t{1} << idx)));
        CHECK(sbitset1(bits, idx) == (bits | (uint64_t{1} << idx)));
        const float f = static_cast<float>(static_cast<int64_t>(rng() % 2001) - 1000) / 7.0f;
        CHECK(ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(f) ==
              static_cast<int32_t>(std::floor(f)));
        CHECK(ScalarCast<float, int32_t, RoundMode::CAST_CEIL>(f) ==
              static_cast<int32_t>(std::ceil(f)));
        CHECK(ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(f) ==
              static_cast<int32_t>(std::round(f)));
      }
    }
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{28}, ~uint64_t{0}, uint64_t{1} << 63}) {
      CHECK(ScalarGetCountOfValue<1>(v) == __builtin_popcountll(v));
      CHECK(ScalarGetCountOfValue<0>(v) == 64 - __builtin_popcountll(v));
      CHECK(ScalarCountLeadingZero(v) == (v == 0 ? 64 : __builtin_clzll(v)));
    }
    CHECK(ScalarGetSFFValue<1>(28) == 2);  // the documented example
    CHECK(ScalarGetSFFValue<1>(0) == -1);
    CHECK(ScalarGetSFFValue<0>(~uint64_t{0}) == -1);
    CHECK(DivCeil(7u, 0) == 0);
    CHECK(AscendCUtils::GetBitSize(sizeof(uint8_t)) == 8);
    CHECK(IsSameType<float, float>::value);
    CHECK_FALSE(IsSameType<float, half>::value);
    CHECK(FULL_MASK == ~uint64_t{0});
    CHECK(B32_DATA_NUM_PER_BLOCK == 8);
    CHECK(B32_DATA_NUM_PER_REPEAT == 64);
    CHECK(ONE_REPEAT_FLOAT_SIZE == 64);
    CHECK(B32_BYTE_SIZE == 4);
    CHECK(BRCB_BROADCAST_NUMBER == 8);
    CHECK(PI == doctest::Approx(3.14159265358979));
    // The block and repeat constants of the AscendC reference.
    CHECK(ONE_BLK_SIZE == 32);
    CHECK(ONE_REPEAT_BYTE_SIZE == 256);
    CHECK(DEFAULT_BLK_NUM == 8);
    CHECK(DEFAULT_BLK_STRIDE == 1);
    CHECK(DEFAULT_REPEAT_STRIDE == 8);
    CHECK(DEFAULT_DATA_COPY_NBURST == 1);
    CHECK(MAX_REPEAT_TIMES == 255);
    CHECK(BLOCK_CUBE == 16);
    CHECK(QUE_MAX_EVENT == 8);
    CHECK(ToFloat(ToBfloat16(1.5f)) == 1.5f);
    int hits = 0;
    for (int i = 0; i < 4; ++i) {
      if (likely(i < 3)) ++hits;
      if (unlikely(i == 3)) hits += 10;
    }
    CHECK(hits == 13);
  }

  TEST_CASE("math: Atan, Sign, Log2, Log10, Fmod, AddRelu and whole-tensor Sin/Cos") {
    for (uint64_t seed : {11, 12, 13}) {
      const std::vector<float> x = draw<float>(seed, 0.05, 40.0);
      std::vector<float> y = draw<float>(seed + 100, -3.0, 3.0);
      y[0] = 0.0f;  // Sign(0) = 0
      core_trace trace;
      const std::vector<float> z = run_tile<float, 8>(
          x, y,
          [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Atan(z, y, N);
            Sign(z[N], y, N);
            Log2(z[2 * N], x, N);
            Log10(z[3 * N], x, N);
            Fmod(z[4 * N], y, x, N);  // x > 0: no zero divisor
            AddRelu(z[5 * N], x, y, static_cast<int32_t>(N));
            LocalTensor<float> sinDst = z[6 * N];
            sinDst.SetSize(N);
            Sin(sinDst, y);
            Cos(z[7 * N], y);
          },
          &trace);
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(z[i] == doctest::Approx(std::atan(y[i])));
        CHECK(z[N + i] == (y[i] > 0 ? 1.0f : (y[i] < 0 ? -1.0f : 0.0f)));
        CHECK(z[2 * N + i] == doctest::Approx(std::log2(x[i])));
        CHECK(z[3 * N + i] == doctest::Approx(std::log10(x[i])));
        CHECK(z[4 * N + i] == doctest::Approx(std::fmod(y[i], x[i])));
        CHECK(z[5 * N + i] == std::max(x[i] + y[i], 0.0f));
        CHECK(z[6 * N + i] == doctest::Approx(std::sin(y[i])));
        CHECK(z[7 * N + i] == doctest::Approx(std::cos(y[i])));
      }
      check_traced(trace, "Atan", op_class::vec_div_transcendental);
      check_traced(trace, "Sign", op_class::vec_simple);
      check_traced(trace, "Log2", op_class::vec_div_transcendental);
      check_traced(trace, "Fmod", op_class::vec_div_transcendental);
      check_traced(trace, "AddRelu", op_class::vec_simple);
      check_traced(trace, "Sin", op_class::vec_div_transcendental);
    }
  }

  TEST_CASE("math: Asin, Acos, Tan, Sinh, Cosh, Atanh, Erfc, Frac") {
    for (uint64_t seed : {14, 15, 16}) {
      const std::vector<float> x = draw<float>(seed, -0.95, 0.95);
      const std::vector<float> y = draw<float>(seed + 100, -6.0, 6.0);
      core_trace trace;
      const std::vector<float> z = run_tile<float, 8>(
          x, y,
          [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Asin(z, x, N);
            Acos(z[N], x, N);
            Tan(z[2 * N], x, N);
            Sinh(z[3 * N], x, N);
            Cosh(z[4 * N], x, N);
            Atanh(z[5 * N], x, N);
            Erfc(z[6 * N], y, N);
            Frac(z[7 * N], y);
          },
          &trace);
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(z[i] == doctest::Approx(std::asin(x[i])));
        CHECK(z[N + i] == doctest::Approx(std::acos(x[i])));
        CHECK(z[2 * N + i] == doctest::Approx(std::tan(x[i])));
        CHECK(z[3 * N + i] == doctest::Approx(std::sinh(x[i])));
        CHECK(z[4 * N + i] == doctest::Approx(std::cosh(x[i])));
        CHECK(z[5 * N + i] == doctest::Approx(std::atanh(x[i])));
        CHECK(z[6 * N + i] == doctest::Approx(std::erfc(y[i])));
        CHECK(z[7 * N + i] == y[i] - std::trunc(y[i]));
      }
      check_traced(trace, "Asin", op_class::vec_div_transcendental);
      check_traced(trace, "Frac", op_class::vec_simple);
    }
  }

  TEST_CASE("Sum and Mean per row, BroadCast along either axis, UnPad by its tiling") {
    constexpr uint32_t rows = 4, inner = 64, n = 61;
    for (uint64_t seed : {21, 22, 23}) {
      const std::vector<float> x = draw<float>(seed, -4.0, 4.0);
      const std::vector<float> y = draw<float>(seed + 100, -4.0, 4.0);
      core_trace trace;
      const std::vector<float> z = run_tile<float, 6>(
          x, y,
          [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Sum(z, x, {rows, inner, n});
            Mean(z[8], x, MeanParams{rows, inner, n});
            const uint32_t dstShape[2] = {rows, inner};
            const uint32_t rowShape[2] = {1, inner};
            const uint32_t colShape[2] = {rows, 1};
            BroadCast<float, 2, 0>(z[N], y, dstShape, rowShape);      // y[0..inner) per row
            BroadCast<float, 2, 1>(z[2 * N], y, dstShape, colShape);  // y[r] across row r
            const uint32_t oneD[1] = {N};
            const uint32_t one[1] = {1};
            BroadCast<float, 1, 0>(z[3 * N], y[8], oneD, one);
            UnPadTiling tiling;
            tiling.srcHeight = rows;
            tiling.srcWidth = inner;
            UnPadParams params;
            params.rightPad = inner - n;
            UnPad(z[4 * N], x, params, tiling);
          },
          &trace);
      for (uint32_t r = 0; r < rows; ++r) {
        double sum = 0;
        for (uint32_t i = 0; i < n; ++i) sum += x[r * inner + i];
        CHECK(z[r] == doctest::Approx(sum).epsilon(1e-4));
        CHECK(z[8 + r] == doctest::Approx(sum / n).epsilon(1e-4));
        for (uint32_t c = 0; c < inner; ++c) {
          CHECK(z[N + r * inner + c] == y[c]);
          CHECK(z[2 * N + r * inner + c] == y[r]);
        }
        for (uint32_t c = 0; c < n; ++c) CHECK(z[4 * N + r * n + c] == x[r * inner + c]);
      }
      for (uint32_t i = 0; i < N; ++i) CHECK(z[3 * N + i] == y[8]);
      check_traced(trace, "Sum", op_class::vec_reduce);
      check_traced(trace, "Mean", op_class::vec_reduce);
      check_traced(trace, "BroadCast", op_class::vec_simple);
      check_traced(trace, "UnPad", op_class::vec_simple);
    }
  }

  TEST_CASE("Broadcast (BroadCast's later name) and ArithProgression against plain C++") {
    constexpr uint32_t rows = 4, inner = 64;
    for (uint64_t seed : {31, 32, 33}) {
      const std::vector<float> x = draw<float>(seed, -4.0, 4.0);
      const std::vector<float> y = draw<float>(seed + 100, -4.0, 4.0);
      // The progression's first value and step from the seed; the step >= 0 as documented.
      const float first = x[1];
      const float step = std::fabs(y[2]);
      const int32_t count = static_cast<int32_t>(100 + seed);  // not a whole block
      core_trace trace;
      const std::vector<float> z = run_tile<float, 3>(
          x, y,
          [&](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            const uint32_t dstShape[2] = {rows, inner};
            const uint32_t rowShape[2] = {1, inner};
            const uint32_t colShape[2] = {rows, 1};
            Broadcast<float, 2, 0>(z, y, dstShape, rowShape);  // y[0..inner) per row
            LocalTensor<uint8_t> tmp = x.ReinterpretCast<uint8_t>();
            Broadcast<float, 2, 1>(z[N], x, dstShape, colShape, tmp);  // x[r] across row r
            ArithProgression<float>(z[2 * N], first, step, count);
          },
          &trace);
      for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t c = 0; c < inner; ++c) {
          CHECK(z[r * inner + c] == y[c]);
          CHECK(z[N + r * inner + c] == x[r]);
        }
      }
      for (int32_t i = 0; i < count; ++i)
        CHECK(z[2 * N + i] == doctest::Approx(first + static_cast<float>(i) * step).epsilon(1e-6));
      check_traced(trace, "BroadCast", op_class::vec_simple);
      const instruction* ap = find_api(trace, "ArithProgression");
      REQUIRE(ap != nullptr);
      CHECK(ap->on == pipe::v);
      CHECK(ap->cls == op_class::vec_simple);
      CHECK(ap->bytes == static_cast<uint64_t>(count) * sizeof(float));
      CHECK_FALSE(ap->writes.empty());
    }
    // Integer progressions, exact.
    for (int32_t first : {-7, 0, 1000}) {
      shim_run run;
      int32_t* out = run.gm<int32_t>("out", N);
      run.run([&] {
        TPipe pipe;
        TQue<QuePosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, N * sizeof(int32_t));
        GlobalTensor<int32_t> outGm;
        outGm.SetGlobalBuffer((__gm__ int32_t*)out, N);
        LocalTensor<int32_t> t = q.AllocTensor<int32_t>();
        ArithProgression<int32_t>(t, first, 3, static_cast<int32_t>(N));
        q.EnQue(t);
        t = q.DeQue<int32_t>();
        DataCopy(outGm, t, N);
        q.FreeTensor(t);
      });
      for (uint32_t i = 0; i < N; ++i) CHECK(out[i] == first + 3 * static_cast<int32_t>(i));
    }
  }

  TEST_CASE("ASCENDC_ASSERT reports a failed condition and passes a true one") {
    shim_run run;
    std::string message;
    CHECK(error_kind([&] { run.run([] { ASCENDC_ASSERT(GetBlockNum() > 4, "few blocks"); }); },
                     &message) == "assertion");
    CHECK(message.find("GetBlockNum() > 4") != std::string::npos);
    CHECK(error_kind([&] {
            run.run([] { ASCENDC_ASSERT(GetBlockNum() >= 1, { printf("never"); }); });
          }) == "");
  }

  TEST_CASE("UnPadTilingFunc fills the UnPadTiling a tiling class saves and UnPad reads") {
    constexpr uint32_t rows = 4, width = 64;
    for (uint32_t cols : {61u, 40u, 64u}) {
      optiling::WildUnPadTilingData host;
      host.set_rows(rows);
      uint32_t maxValue = 1, minValue = 1;
      const ge::Shape srcShape(std::vector<int64_t>{rows, width});
      fe::PlatFormInfos* no_platform = nullptr;
      AscendC::GetUnPadMaxMinTmpSize(platform_ascendc::PlatformAscendC(no_platform), srcShape,
                                     sizeof(float), maxValue, minValue);
      CHECK(minValue == 32);  // UnPad uses no temporary buffer: one block, the least to allocate
      AscendC::UnPadTilingFunc(srcShape, minValue, sizeof(float), host.unpadTilingData);
      std::vector<uint8_t> saved(host.GetDataSize());
      host.SaveToBuffer(saved.data(), saved.size());
      const std::vector<float> x = draw<float>(cols, -1.0, 1.0);
      const std::vector<float> z = run_tile<float, 1>(
          x, x, [&](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>&) {
            GET_TILING_DATA_WITH_STRUCT(optiling::WildUnPadTilingData, tiling, saved.data());
            UnPadParams params;
            params.rightPad = static_cast<uint16_t>(width - cols);
            UnPad(z, x, params, tiling.unpadTilingData);
          });
      for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < cols; ++c) CHECK(z[r * cols + c] == x[r * width + c]);
    }
  }

  TEST_CASE("Extract splits Sort32's (score, index) pairs") {
    for (uint64_t seed : {31, 32, 33}) {
      const std::vector<float> x = draw<float>(seed, -10.0, 10.0);
      std::vector<float> idx(N);
      for (uint32_t i = 0; i < N; ++i) {
        const uint32_t v = i * 3 + 1;
        std::memcpy(&idx[i], &v, 4);
      }
      core_trace trace;
      const std::vector<float> z = run_tile<float, 4>(
          x, idx,
          [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Sort32(z, x, y.ReinterpretCast<uint32_t>(), 2);  // 64 pairs in z[0..128)
            LocalTensor<uint32_t> indexes = z[3 * N].ReinterpretCast<uint32_t>();
            Extract(z[2 * N], indexes, z, 2);
          },
          &trace);
      for (uint32_t k = 0; k < 64; ++k) {
        CHECK(z[2 * N + k] == z[2 * k]);
        uint32_t from_pair, extracted;
        std::memcpy(&from_pair, &z[2 * k + 1], 4);
        std::memcpy(&extracted, &z[3 * N + k], 4);
        CHECK(extracted == from_pair);
        CHECK((extracted - 1) % 3 == 0);
        CHECK(z[2 * N + k] == x[(extracted - 1) / 3]);
      }
      check_traced(trace, "Extract", op_class::vec_simple);
    }
  }

  TEST_CASE("LocalTensor operators run the named instruction over the whole tensor") {
    for (uint64_t seed : {41, 42, 43}) {
      const std::vector<float> x = draw<float>(seed, -2.0, 2.0);
      const std::vector<float> y = draw<float>(seed + 100, -2.0, 2.0);
      core_trace trace;
      const std::vector<float> z = run_tile<float, 5>(
          x, y,
          [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<float> sum = z;
            sum = x + y;
            LocalTensor<float> prod = z[N];
            prod = x * y;
            LocalTensor<uint8_t> lt = z[2 * N].ReinterpretCast<uint8_t>();
            lt = x < y;
            LocalTensor<uint8_t> le = z[3 * N].ReinterpretCast<uint8_t>();
            le = x <= y;
            LocalTensor<int32_t> xi = x.ReinterpretCast<int32_t>();
            LocalTensor<int32_t> yi = y.ReinterpretCast<int32_t>();
            LocalTensor<int32_t> andDst = z[4 * N].ReinterpretCast<int32_t>();
            andDst = xi & yi;
          },
          &trace);
      const auto* bytes = reinterpret_cast<const uint8_t*>(z.data());
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(z[i] == x[i] + y[i]);
        CHECK(z[N + i] == x[i] * y[i]);
        CHECK(((bytes[2 * N * 4 + i / 8] >> (i % 8)) & 1) == (x[i] < y[i] ? 1 : 0));
      }
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(((bytes[3 * N * 4 + i / 8] >> (i % 8)) & 1) == (x[i] <= y[i] ? 1 : 0));
        int32_t xv, yv, got;
        std::memcpy(&xv, &x[i], 4);
        std::memcpy(&yv, &y[i], 4);
        std::memcpy(&got, &z[4 * N + i], 4);
        CHECK(got == (xv & yv));
      }
      CHECK(find_api(trace, "Add") != nullptr);
      CHECK(find_api(trace, "Compare") != nullptr);
      CHECK(find_api(trace, "And") != nullptr);
    }
  }

  TEST_CASE("TBuf::AllocTensor, GlobalTensor::operator() and the braced DataCopyPad") {
    for (uint64_t seed : {51, 52, 53}) {
      const std::vector<int32_t> in = [&] {
        std::mt19937_64 rng(seed);
        std::vector<int32_t> v(N);
        for (int32_t& e : v) e = static_cast<int32_t>(rng() % 1000);
        return v;
      }();
      shim_run run;
      int32_t* xg = run.gm<int32_t>("x", N);
      int32_t* zg = run.gm<int32_t>("z", N + 1);
      std::copy(in.begin(), in.end(), xg);
      const core_trace trace = run.run([&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, N * sizeof(int32_t));
        GlobalTensor<int32_t> xGm, zGm;
        xGm.SetGlobalBuffer((__gm__ int32_t*)xg, N);
        zGm.SetGlobalBuffer((__gm__ int32_t*)zg, N + 1);
        // Scalar prefix sum through GM references, as fbgemm's cumsum writes it.
        int32_t acc = 0;
        for (uint32_t i = 0; i < 8; ++i) {
          zGm(i) = acc;
          acc += xGm(i);
        }
        LocalTensor<int32_t> t = buf.AllocTensor<int32_t>();
        CHECK(t.GetSize() == N);
        DataCopy(t, xGm, N);
        SetFlag<HardEvent::MTE2_MTE3>(0);
        WaitFlag<HardEvent::MTE2_MTE3>(0);
        // 4 values (16 bytes) to z[8..12): blockLen in bytes, a 4-element braced list.
        DataCopyPad(zGm[8], t, {1, static_cast<uint16_t>(4 * sizeof(int32_t)), 0, 0});
        // Atomic max/min into z[16..24) (zero-filled): max keeps the positive values, min then
        // keeps 100 where the first copy left a larger value.
        SetAtomicMax<int32_t>();
        DataCopy(zGm[16], t, 8);
        SetAtomicMin<int32_t>();
        DataCopy(zGm[16], t[8], 8);
        SetAtomicNone();
        buf.FreeTensor(t);
        // Vector-only identities; the mode and cache hints are accepted without effect.
        CHECK(GetSubBlockNum() == 1);
        CHECK(GetTaskRation() == 1);
        SetKernelMode(KernelMode::AIV_MODE);
        zGm.SetL2CacheHint(CacheMode::CACHE_MODE_NORMAL);
        GatherMaskMode mode = defaultGatherMaskMode;
        CHECK(mode == GatherMaskMode::DEFAULT);
      });
      int32_t acc = 0;
      for (uint32_t i = 0; i < 8; ++i) {
        CHECK(zg[i] == acc);
        acc += in[i];
      }
      for (uint32_t i = 0; i < 4; ++i) CHECK(zg[8 + i] == in[i]);
      CHECK(zg[12] == 0);  // DataCopyPad wrote exactly 16 bytes
      for (uint32_t i = 0; i < 8; ++i) CHECK(zg[16 + i] == std::min(std::max(0, in[i]), in[8 + i]));
      // The 8 reads and 8 writes through gm(i) are traced scalar GM accesses (coalesced).
      uint64_t scalar_gm = 0;
      for (const instruction& in : trace.instructions)
        if (in.cls == op_class::scalar_gm) scalar_gm += in.count;
      CHECK(scalar_gm == 16);
      CHECK(find_api(trace, "DataCopyPad") != nullptr);
    }
  }

  TEST_CASE("InitOutput, InitGlobalMemory's earlier name, fills GM as plain C++ does") {
    for (uint64_t seed : {61, 62, 63}) {
      std::mt19937_64 rng(seed);
      const uint32_t count = 8 + static_cast<uint32_t>(rng() % (N - 16));
      const auto value = static_cast<int32_t>(rng() % 2000) - 1000;
      shim_run run;
      int32_t* zg = run.gm<int32_t>("z", N);
      std::vector<int32_t> expected(N, 7);
      std::fill(zg, zg + N, 7);
      const core_trace trace = run.run([&] {
        GlobalTensor<int32_t> zGm;
        zGm.SetGlobalBuffer((__gm__ int32_t*)zg, N);
        InitOutput<int32_t>(zGm, count, value);
        InitOutput<int32_t>(zGm[count], 4);  // the value defaults to zero
      });
      std::fill(expected.begin(), expected.begin() + count, value);
      std::fill(expected.begin() + count, expected.begin() + count + 4, 0);
      CHECK(std::vector<int32_t>(zg, zg + N) == expected);
      CHECK(find_api(trace, "InitOutput") != nullptr);
    }
  }

  TEST_CASE("LocalTensor::operator() reads, writes, copies and updates single elements") {
    // DrivingSDK's roipoint_pool3d repeats its first cnt sampled indices: t(i) = t(i % cnt).
    for (uint64_t seed : {91, 92, 93}) {
      std::mt19937_64 rng(seed);
      const uint32_t cnt = 1 + static_cast<uint32_t>(rng() % 40);
      const std::vector<int32_t> x = draw<int32_t>(seed, -1000, 1000);
      std::vector<int32_t> expected = x;
      for (uint32_t i = cnt; i < N; ++i) expected[i] = expected[i % cnt];
      expected[0] += 7;
      expected[1] -= 3;
      const auto z = run_tile<int32_t, 1>(
          x, x, [&](LocalTensor<int32_t>& zl, LocalTensor<int32_t>& xl, LocalTensor<int32_t>&) {
            DataCopy(zl, xl, N);  // UB -> UB on MTE, ordered before the scalar reads by a flag
            SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
            for (uint32_t i = cnt; i < N; ++i) zl(i) = zl(i % cnt);
            zl(0) += 7;
            zl[1](0) -= 3;  // through a temporary sub-tensor
          });
      CHECK(z == expected);
    }
  }

  TEST_CASE("float32_t, the NPU compiler's 32-bit float, is float to every API") {
    // fbgemm-ascend's embedding kernels declare GlobalTensor<float32_t>.
    const std::vector<float32_t> x = draw<float32_t>(81, -4.0, 4.0);
    const std::vector<float32_t> y = draw<float32_t>(82, -4.0, 4.0);
    const auto z = run_tile<float32_t, 1>(x, y,
                                          [](LocalTensor<float32_t>& zl, LocalTensor<float32_t>& xl,
                                             LocalTensor<float32_t>& yl) { Add(zl, xl, yl, N); });
    for (uint32_t i = 0; i < N; ++i) CHECK(z[i] == x[i] + y[i]);
  }

  TEST_CASE("kernels see the Atlas A2 architecture macros CANN's compiler defines for them") {
    // A kernel choosing its A2 path (`#if __CCE_AICORE__ == 220`, `#elif __NPU_ARCH__ == 2201`).
#if __CCE_AICORE__ == 220 && __NPU_ARCH__ == 2201
    constexpr bool a2_path = true;
#else
    constexpr bool a2_path = false;
#endif
    CHECK(a2_path);
  }

  TEST_CASE("CreateVecIndex by lane mask with block and repeat strides, against plain C++") {
    // Three (first value, mask, strides) draws over float lanes (64 a repeat) and one int16_t
    // bit mask over 128 lanes; lanes the mask leaves off keep the output's earlier contents.
    for (uint64_t seed : {71, 72, 73}) {
      std::mt19937_64 rng(seed);
      const auto first = static_cast<float>(static_cast<int>(rng() % 200) - 100);
      const uint64_t mask = 1 + rng() % 64;
      const auto blk = static_cast<uint16_t>(1 + rng() % 2);
      const auto rep = static_cast<uint8_t>(8 * blk);
      const uint8_t repeats = static_cast<uint8_t>(N * 4 / 256 / blk / 2);  // within z
      std::vector<float> expected(N * 4, -1.0f);
      for (uint32_t r = 0; r < repeats; ++r)
        for (uint32_t lane = 0; lane < mask; ++lane)
          expected[(r * rep + lane / 8 * blk) * 8 + lane % 8] =
              first + static_cast<float>(r * 64 + lane);
      const std::vector<float> none(N, 0.0f);
      core_trace trace;
      const auto out = run_tile<float, 4>(
          none, none,
          [&](LocalTensor<float>& z, LocalTensor<float>&, LocalTensor<float>&) {
            Duplicate(z, -1.0f, N * 4);
            CreateVecIndex(z, first, mask, repeats, blk, rep);
          },
          &trace);
      CHECK(out == expected);
      const instruction* in = find_api(trace, "CreateVecIndex");
      REQUIRE(in != nullptr);
      CHECK(in->on == pipe::v);
      CHECK_FALSE(in->writes.empty());
    }
    const uint64_t bits[2] = {0xF0F0F0F0F0F0F0F0ull, 0x1ull};
    std::vector<int16_t> expected(N * 2, 3);
    for (uint32_t r = 0; r < 2; ++r)
      for (uint32_t lane = 0; lane < 128; ++lane)
        if (lane < 64 ? (bits[0] >> lane) & 1u : (bits[1] >> (lane - 64)) & 1u)
          expected[r * 128 + lane] = static_cast<int16_t>(5 + r * 128 + lane);
    const std::vector<int16_t> none(N, 0);
    const auto out = run_tile<int16_t, 2>(
        none, none, [&](LocalTensor<int16_t>& z, LocalTensor<int16_t>&, LocalTensor<int16_t>&) {
          Duplicate(z, static_cast<int16_t>(3), N * 2);
          CreateVecIndex(z, static_cast<int16_t>(5), bits, 2, 1, 8);
        });
    CHECK(out == expected);
  }
}

}  // namespace
}  // namespace aopt::sim
