// The API groups added for operators written against CANN (docs/ascendc-api-coverage.md), each
// exercised by a kernel written the way public samples are (Init / CopyIn / Compute / CopyOut
// over TQue buffers) and checked against plain C++ on three seeded input sets.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "npu/sim/runtime/timing_model.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

constexpr uint32_t N = 256;  // elements per operand

// One tile in, several results out (`outputs` rows of N), a VECCALC scratch buffer.
template <typename T, uint32_t Outputs>
class TileKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    xGm_.SetGlobalBuffer((__gm__ T*)x, N);
    yGm_.SetGlobalBuffer((__gm__ T*)y, N);
    zGm_.SetGlobalBuffer((__gm__ T*)z, N * Outputs);
    pipe_.InitBuffer(inQueueX_, 1, N * sizeof(T));
    pipe_.InitBuffer(inQueueY_, 1, N * sizeof(T));
    pipe_.InitBuffer(outQueueZ_, 1, N * Outputs * sizeof(T));
  }
  template <typename Compute>
  __aicore__ inline void Process(Compute&& compute) {
    LocalTensor<T> xLocal = inQueueX_.template AllocTensor<T>();
    LocalTensor<T> yLocal = inQueueY_.template AllocTensor<T>();
    DataCopy(xLocal, xGm_, N);
    DataCopy(yLocal, yGm_, N);
    inQueueX_.EnQue(xLocal);
    inQueueY_.EnQue(yLocal);
    xLocal = inQueueX_.template DeQue<T>();
    yLocal = inQueueY_.template DeQue<T>();
    LocalTensor<T> zLocal = outQueueZ_.template AllocTensor<T>();
    compute(zLocal, xLocal, yLocal);
    outQueueZ_.EnQue(zLocal);
    inQueueX_.FreeTensor(xLocal);
    inQueueY_.FreeTensor(yLocal);
    zLocal = outQueueZ_.template DeQue<T>();
    DataCopy(zGm_, zLocal, N * Outputs);
    outQueueZ_.FreeTensor(zLocal);
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, 1> outQueueZ_;
  GlobalTensor<T> xGm_, yGm_, zGm_;
};

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
    TileKernel<T, Outputs> op;
    op.Init(reinterpret_cast<GM_ADDR>(xg), reinterpret_cast<GM_ADDR>(yg),
            reinterpret_cast<GM_ADDR>(zg));
    op.Process(compute);
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

bool has_api(const core_trace& t, const std::string& api) {
  for (const instruction& in : t.instructions)
    if (api == in.api) return true;
  return false;
}

// The indexes of x[first, first + n), largest score first, equal scores in input order.
std::vector<uint32_t> sorted_order(const std::vector<float>& x, uint32_t first, uint32_t n) {
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = first + i;
  std::stable_sort(order.begin(), order.end(),
                   [&x](uint32_t a, uint32_t b) { return x[a] > x[b]; });
  return order;
}

// z[at...] holds the 8-byte (score, index) pairs of `order`.
void check_pairs(const std::vector<float>& z, uint32_t at, const std::vector<float>& x,
                 const std::vector<uint32_t>& order) {
  for (uint32_t k = 0; k < order.size(); ++k) {
    uint32_t index;
    std::memcpy(&index, z.data() + at + k * 2 + 1, 4);
    CHECK(z[at + k * 2] == x[order[k]]);
    CHECK(index == order[k]);
  }
}

TEST_SUITE("sim") {
  TEST_CASE("math APIs: Neg, Log, Power, ClampMax/Min, FusedMulAdd, MulAddDst, Exp/Ln overloads") {
    for (uint64_t seed : {1, 2, 3}) {
      const std::vector<float> x = draw<float>(seed, 0.1, 3.0);
      const std::vector<float> y = draw<float>(seed + 100, -2.0, 2.0);
      core_trace trace;
      const std::vector<float> z = run_tile<float, 12>(
          x, y,
          [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Neg(z, y, N);
            Log(z[N], x, N);
            Power(z[2 * N], x, y, N);
            Power(z[3 * N], x, 2.0f, N);
            Power(z[4 * N], 2.0f, y, N);
            ClampMax(z[5 * N], y, 0.5f, N);
            ClampMin(z[6 * N], y, -0.5f, N);
            Duplicate(z[7 * N], 1.5f, N);
            FusedMulAdd(z[7 * N], x, y, N);  // x * 1.5 + y
            Duplicate(z[8 * N], 0.25f, N);
            MulAddDst(z[8 * N], x, y, N);  // x * y + 0.25
            Exp<float, 15, false>(z[9 * N], y, N);
            Ln<float, false>(z[10 * N], x, N);
            Exp<float, 0>(z[11 * N], x, N);
          },
          &trace);
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(z[i] == -y[i]);
        CHECK(z[N + i] == doctest::Approx(std::log(x[i])));
        CHECK(z[2 * N + i] == doctest::Approx(std::pow(x[i], y[i])));
        CHECK(z[3 * N + i] == doctest::Approx(x[i] * x[i]));
        CHECK(z[4 * N + i] == doctest::Approx(std::pow(2.0f, y[i])));
        CHECK(z[5 * N + i] == std::min(y[i], 0.5f));
        CHECK(z[6 * N + i] == std::max(y[i], -0.5f));
        CHECK(z[7 * N + i] == doctest::Approx(x[i] * 1.5f + y[i]));
        CHECK(z[8 * N + i] == doctest::Approx(x[i] * y[i] + 0.25f));
        CHECK(z[9 * N + i] == doctest::Approx(std::exp(y[i])));
        CHECK(z[10 * N + i] == doctest::Approx(std::log(x[i])));
        CHECK(z[11 * N + i] == doctest::Approx(std::exp(x[i])));
      }
      // Each is one vector instruction, costed by its class.
      CHECK(has_api(trace, "Power"));
      for (const instruction& in : trace.instructions) {
        if (std::string(in.api) == "Power") CHECK(in.cls == op_class::vec_div_transcendental);
        if (std::string(in.api) == "FusedMulAdd") CHECK(in.cls == op_class::vec_mul);
        if (std::string(in.api) == "Neg") CHECK(in.cls == op_class::vec_simple);
      }
    }
  }

  TEST_CASE("FusedMulAdd and MulAddDst in the mask/repeat forms update only the masked lanes") {
    for (uint64_t seed : {40, 41, 42}) {
      const std::vector<float> x = draw<float>(seed, -2, 2);
      const std::vector<float> y = draw<float>(seed + 100, -2, 2);
      const std::vector<float> z = run_tile<float, 2>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Adds(z, y, 0.0f, N);
            Adds(z[N], y, 0.0f, N);
            // The first 32 of every 64 lanes, four repeats: z = x * z + y.
            FusedMulAdd(z, x, y, 32, 4, {1, 1, 1, 8, 8, 8});
            // Even lanes only: z = x * y + z.
            const uint64_t even[2] = {0x5555555555555555ull, 0};
            MulAddDst(z[N], x, y, even, 4, {1, 1, 1, 8, 8, 8});
          });
      // Fused: one rounding of the exact x * y + y, so compare within float precision; lanes
      // outside the mask keep y exactly.
      for (uint32_t i = 0; i < N; ++i) {
        const double fused = static_cast<double>(x[i]) * y[i] + y[i];
        if (i % 64 < 32) {
          CHECK(z[i] == doctest::Approx(fused));
        } else {
          CHECK(z[i] == y[i]);
        }
        if (i % 2 == 0) {
          CHECK(z[N + i] == doctest::Approx(fused));
        } else {
          CHECK(z[N + i] == y[i]);
        }
      }
    }
  }

  TEST_CASE("activation APIs of the math library against <cmath>, printing from the kernel") {
    for (uint64_t seed : {16, 17, 18}) {
      const std::vector<float> x = draw<float>(seed, -3, 3);
      const std::vector<float> y = draw<float>(seed + 100, -3, 3);
      const std::vector<float> z = run_tile<float, 11>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>&) {
            Tanh(z, x, N);
            Sigmoid(z[N], x, N);
            Sin(z[2 * N], x, N);
            Cos(z[3 * N], x, N);
            Erf(z[4 * N], x, N);
            Gelu(z[5 * N], x, N);
            Silu(z[6 * N], x, N);
            Floor(z[7 * N], x, N);
            Ceil(z[8 * N], x, N);
            Round(z[9 * N], x, N);
            Trunc(z[10 * N], x, N);
            printf("activations of %d elements\n", static_cast<int>(N));
            std::cout << "block " << GetBlockIdx() << " done\n";
          });
      for (uint32_t i = 0; i < N; ++i) {
        const float v = x[i];
        CHECK(z[i] == doctest::Approx(std::tanh(v)));
        CHECK(z[N + i] == doctest::Approx(1.0f / (1.0f + std::exp(-v))));
        CHECK(z[2 * N + i] == doctest::Approx(std::sin(v)));
        CHECK(z[3 * N + i] == doctest::Approx(std::cos(v)));
        CHECK(z[4 * N + i] == doctest::Approx(std::erf(v)));
        CHECK(z[5 * N + i] ==
              doctest::Approx(0.5f * v *
                              (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)))));
        CHECK(z[6 * N + i] == doctest::Approx(v / (1.0f + std::exp(-v))));
        CHECK(z[7 * N + i] == std::floor(v));
        CHECK(z[8 * N + i] == std::ceil(v));
        CHECK(z[9 * N + i] == std::round(v));
        CHECK(z[10 * N + i] == std::trunc(v));
      }
    }
  }

  TEST_CASE("integer logic APIs: And, Or, Xor, Not on int16_t") {
    for (uint64_t seed : {4, 5, 6}) {
      const std::vector<int16_t> x = draw<int16_t>(seed, -30000, 30000);
      const std::vector<int16_t> y = draw<int16_t>(seed + 100, -30000, 30000);
      const std::vector<int16_t> z = run_tile<int16_t, 4>(
          x, y, [](LocalTensor<int16_t>& z, LocalTensor<int16_t>& x, LocalTensor<int16_t>& y) {
            And(z, x, y, N);
            Or(z[N], x, y, N);
            Xor(z[2 * N], x, y, N);
            Not(z[3 * N], x, N);
          });
      for (uint32_t i = 0; i < N; ++i) {
        CHECK(z[i] == static_cast<int16_t>(x[i] & y[i]));
        CHECK(z[N + i] == static_cast<int16_t>(x[i] | y[i]));
        CHECK(z[2 * N + i] == static_cast<int16_t>(x[i] ^ y[i]));
        CHECK(z[3 * N + i] == static_cast<int16_t>(~x[i]));
      }
    }
  }

  TEST_CASE("rearranging APIs: Gather, Brcb, CreateVecIndex, Transpose, Copy") {
    for (uint64_t seed : {7, 8, 9}) {
      const std::vector<float> x = draw<float>(seed, -5, 5);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      const std::vector<float> z = run_tile<float, 4>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            // Reverse x with byte offsets made by CreateVecIndex: (N - 1 - i) * 4.
            LocalTensor<int32_t> index = z[3 * N].ReinterpretCast<int32_t>();
            CreateVecIndex(index, static_cast<int32_t>(0), N);
            Muls(index, index, -4, N);
            Adds(index, index, static_cast<int32_t>((N - 1) * 4), N);
            Gather(z, x, index.ReinterpretCast<uint32_t>(), 0, N);
            // Each of y's first 32 elements fills a block of 8.
            Brcb(z[N], y, 4, BrcbRepeatParams(1, 8));
            // The first 512 bytes of x as a 16 x 16 matrix of 2-byte words.
            Transpose(z[2 * N].ReinterpretCast<uint16_t>(), x.ReinterpretCast<uint16_t>());
            // Every second block of y into the last row, the others stay.
            CreateVecIndex(z[3 * N], 0.0f, N);
            Copy(z[3 * N], y, 64, 2, CopyRepeatParams(2, 2, 16, 16));
          });
      for (uint32_t i = 0; i < N; ++i) CHECK(z[i] == x[N - 1 - i]);
      for (uint32_t i = 0; i < 32 * 8; ++i) CHECK(z[N + i] == y[i / 8]);
      std::vector<uint16_t> words(N * 2);
      std::memcpy(words.data(), x.data(), N * 4);
      std::vector<uint16_t> t(N * 2);
      std::memcpy(t.data(), z.data() + 2 * N, N * 4);
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < 16; ++c) CHECK(t[c * 16 + r] == words[r * 16 + c]);
      for (uint32_t i = 0; i < N; ++i) {
        const bool copied = (i / 8) % 2 == 0;  // blocks 0, 2, 4, ... of both repeats
        CHECK(z[3 * N + i] == (copied ? y[i] : static_cast<float>(i)));
      }
    }
  }

  TEST_CASE("Gather's mask and repeat forms, the enhanced DataCopy and integer event ids") {
    for (uint64_t seed : {11, 12, 13}) {
      const std::vector<float> x = draw<float>(seed, -5, 5);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      const std::vector<float> z = run_tile<float, 4>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Duplicate(z, -1.0f, 3 * N);
            // Byte offsets that reverse x: (N - 1 - i) * 4.
            LocalTensor<int32_t> index = z[3 * N].ReinterpretCast<int32_t>();
            CreateVecIndex(index, static_cast<int32_t>(0), N);
            Muls(index, index, -4, N);
            Adds(index, index, static_cast<int32_t>((N - 1) * 4), N);
            // Two repeats of all 64 lanes, 16 blocks apart: z[0, 64) and z[128, 192).
            const uint8_t repeats = 2;
            Gather(z, x, index.ReinterpretCast<uint32_t>(), 0u, 64, repeats, 16);
            // The even lanes of one repeat, by bit mask, from the second repeat's offsets.
            const uint64_t even[2] = {0x5555555555555555ull, 0};
            Gather(z[N], x, index[64].ReinterpretCast<uint32_t>(), 0, even, 1, 8);
            // The enhanced form copies as the plain one: 8 blocks of y.
            DataCopy(z[2 * N], y, DataCopyParams(1, 8, 0, 0), {});
            // The intrinsics take an id as a literal or a uint64_t variable.
            set_flag(PIPE_V, PIPE_S, 0);
            wait_flag(PIPE_V, PIPE_S, 0);
            uint64_t eventId = EVENT_ID1;
            set_flag(PIPE_V, PIPE_MTE3, eventId);
            wait_flag(PIPE_V, PIPE_MTE3, eventId);
          });
      for (uint32_t i = 0; i < N; ++i) {
        const bool gathered = i < 64 || (i >= 128 && i < 192);
        const uint32_t lane = i < 64 ? i : i - 64;  // repeat 1 reads offsets 64..127
        CHECK(z[i] == (gathered ? x[N - 1 - lane] : -1.0f));
        const bool even_lane = i < 64 && i % 2 == 0;
        CHECK(z[N + i] == (even_lane ? x[N - 1 - (64 + i)] : -1.0f));
        CHECK(z[2 * N + i] == (i < 64 ? y[i] : -1.0f));
      }
    }
    shim_run run;
    std::string message;
    CHECK(error_kind([&] { run.run([] { set_flag(PIPE_V, PIPE_S, uint64_t{1} << 40); }); },
                     &message) == "flag_misuse");
    CHECK(message.find("outside 0..7") != std::string::npos);
  }

  TEST_CASE("the pattern reduces: ReduceSum, ReduceMax, ReduceMin over AR and RA shapes") {
    for (uint64_t seed : {21, 22, 23}) {
      const std::vector<float> x = draw<float>(seed, -5, 5);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      const std::vector<float> z = run_tile<float, 4>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Duplicate(z, -1.0f, 4 * N);
            // x as 4 rows of 60 values, each row padded to 64 (srcInnerPad).
            const uint32_t padded[2] = {4, 60};
            ReduceSum<float, Pattern::Reduce::AR, false>(z, x, padded, true);
            ReduceMax<float, Pattern::Reduce::AR>(z[8], x, padded, true);
            ReduceMin<float, Pattern::Reduce::AR>(z[16], x, y.ReinterpretCast<uint8_t>(), padded,
                                                  true);
            // x as 4 rows of 64, reduced over the rows.
            const uint32_t rows[2] = {4, 64};
            ReduceSum<float, Pattern::Reduce::RA>(z[N], x, y.ReinterpretCast<uint8_t>(), rows,
                                                  false);
          });
      for (uint32_t r = 0; r < 4; ++r) {
        float sum = 0, hi = x[r * 64], lo = x[r * 64];
        for (uint32_t i = 0; i < 60; ++i) {
          sum += x[r * 64 + i];
          hi = std::max(hi, x[r * 64 + i]);
          lo = std::min(lo, x[r * 64 + i]);
        }
        CHECK(z[r] == doctest::Approx(sum).epsilon(1e-5));
        CHECK(z[8 + r] == hi);
        CHECK(z[16 + r] == lo);
      }
      CHECK(z[4] == -1.0f);  // AR wrote one value per row
      for (uint32_t j = 0; j < 64; ++j) {
        float sum = 0;
        for (uint32_t r = 0; r < 4; ++r) sum += x[r * 64 + j];
        CHECK(z[N + j] == doctest::Approx(sum).epsilon(1e-5));
      }
      CHECK(z[N + 64] == -1.0f);
    }
  }

  TEST_CASE("the enhanced Transpose: NCHW <-> NHWC for 4-byte data, ND2ND_B16, reserved types") {
    // x as 2 images of 4 channels x (4 x 8) positions; the result moved there and back.
    constexpr uint16_t images = 2, channels = 4, height = 4, width = 8;
    constexpr uint32_t plane = height * width;
    static_assert(images * channels * plane == N);
    for (uint64_t seed : {31, 32, 33}) {
      const std::vector<float> x = draw<float>(seed, -5, 5);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      const std::vector<float> z = run_tile<float, 3>(
          x, y, [&](LocalTensor<float>& z, LocalTensor<float>& in, LocalTensor<float>& spare) {
            LocalTensor<uint8_t> tmp = spare.ReinterpretCast<uint8_t>();  // left untouched
            TransposeParamsExt params;
            params.nSize = images;
            params.cSize = channels;
            params.hSize = height;
            params.wSize = width;
            params.transposeType = TransposeType::TRANSPOSE_NCHW2NHWC;
            Transpose(z, in, tmp, params);
            Transpose(z[N], z, tmp,
                      {images, channels, height, width, TransposeType::TRANSPOSE_NHWC2NCHW});
            // ND2ND_B16 is the 16 x 16 transpose of two-byte words, in place.
            LocalTensor<uint16_t> words = z[2 * N].ReinterpretCast<uint16_t>();
            DataCopy(z[2 * N], in, N);
            PipeBarrier<PIPE_V>();
            Transpose(words, words, tmp, {1, 1, 16, 16, TransposeType::TRANSPOSE_ND2ND_B16});
          });
      for (uint32_t b = 0; b < images; ++b)
        for (uint32_t c = 0; c < channels; ++c)
          for (uint32_t i = 0; i < plane; ++i)
            CHECK(z[(b * plane + i) * channels + c] == x[(b * channels + c) * plane + i]);
      for (uint32_t i = 0; i < N; ++i) CHECK(z[N + i] == x[i]);
      std::vector<uint16_t> words(N * 2), t(N * 2);
      std::memcpy(words.data(), x.data(), N * 4);
      std::memcpy(t.data(), z.data() + 2 * N, N * 4);
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < 16; ++c) CHECK(t[c * 16 + r] == words[r * 16 + c]);
    }
    // A reserved type, and NCHW2NHWC in place, are refused naming the rule.
    const std::vector<float> x = draw<float>(34, -5, 5);
    for (const TransposeType type :
         {TransposeType::TRANSPOSE_NZ2ND_0213, TransposeType::TRANSPOSE_NCHW2NHWC}) {
      std::string message;
      CHECK(error_kind(
                [&] {
                  run_tile<float, 1>(
                      x, x,
                      [&](LocalTensor<float>& z, LocalTensor<float>& in, LocalTensor<float>&) {
                        DataCopy(z, in, N);
                        PipeBarrier<PIPE_V>();
                        Transpose(z, z, in.ReinterpretCast<uint8_t>(),
                                  {1, channels, height, width, type});
                      });
                },
                &message) != "");
      CHECK(message.find(type == TransposeType::TRANSPOSE_NCHW2NHWC
                             ? "do not overlap"
                             : "reserved") != std::string::npos);
    }
  }

  TEST_CASE("Sort32 sorts each group of 32 scores, largest first, with their indexes") {
    for (uint64_t seed : {19, 20, 21}) {
      std::vector<float> x = draw<float>(seed, -4, 4);
      x[5] = x[6];  // a tie keeps the earlier index first
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      const std::vector<float> z = run_tile<float, 2>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<uint32_t> index = y.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, N);
            Sort32(z, x, index, 2);  // 64 scores, 2 x 32 pairs of 8 bytes = 512 bytes
          });
      for (uint32_t r = 0; r < 2; ++r) check_pairs(z, r * 64, x, sorted_order(x, r * 32, 32));
    }
  }

  TEST_CASE("MrgSort merges Sort32's sorted groups into one list, largest first") {
    for (uint64_t seed : {22, 23, 24}) {
      std::vector<float> x = draw<float>(seed, -4, 4);
      x[40] = x[3];  // a tie across lists: the earlier list's pair comes first
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      // 4 groups of 32 -> Sort32 -> one MrgSort of 4 lists (128 pairs = 256 floats).
      const std::vector<float> z = run_tile<float, 2>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<uint32_t> index = y.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, N);
            LocalTensor<float> sorted = z[256];
            Sort32(sorted, x, index, 4);
            PipeBarrier<PIPE_V>();
            const uint16_t lengths[4] = {32, 32, 32, 32};
            MrgSort(z, MrgSortSrcList<float>(sorted, sorted[64], sorted[128], sorted[192]),
                    MrgSort4Info(lengths, false, 0b1111, 1));
          });
      check_pairs(z, 0, x, sorted_order(x, 0, 128));
    }
  }

  TEST_CASE("MrgSort repeats over contiguous lists, and the high-level Sort sorts everything") {
    for (uint64_t seed : {31, 32, 33}) {
      std::vector<float> x = draw<float>(seed, -4, 4);
      x[200] = x[7];  // a tie the full sort must keep in input order
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      // Sort32 of 8 groups, then one MrgSort of 2 repeats: groups 0-3 and groups 4-7.
      const std::vector<float> merged = run_tile<float, 4>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<uint32_t> index = y.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, N);
            LocalTensor<float> sorted = z[512];
            Sort32(sorted, x, index, 8);
            PipeBarrier<PIPE_V>();
            MrgSort4Info params;
            for (uint16_t& l : params.elementLengths) l = 32;
            params.ifExhaustedSuspension = false;
            params.validBit = 0b1111;
            params.repeatTimes = 2;
            MrgSort<float>(z, {sorted[0], sorted[64], sorted[128], sorted[192]}, params);
          });
      check_pairs(merged, 0, x, sorted_order(x, 0, 128));
      check_pairs(merged, 256, x, sorted_order(x, 128, 128));
      const std::vector<float> full = run_tile<float, 4>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<uint32_t> index = y.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, N);
            LocalTensor<float> tmp = z[768];
            Sort<float, true>(z, x, index, tmp, 8);
          });
      check_pairs(full, 0, x, sorted_order(x, 0, N));
    }
  }

  TEST_CASE("a suspended MrgSort stops at the first exhausted list; GetMrgSortResult counts") {
    for (uint64_t seed : {34, 35, 36}) {
      const std::vector<float> x = draw<float>(seed, -4, 4);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      uint16_t taken[4] = {9, 9, 9, 9};
      const std::vector<float> z = run_tile<float, 2>(
          x, y, [&](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<uint32_t> index = y.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, N);
            LocalTensor<float> sorted = z[256];
            Sort32(sorted, x, index, 2);
            PipeBarrier<PIPE_V>();
            const uint16_t lengths[4] = {32, 5, 0, 0};
            MrgSort(z, MrgSortSrcList<float>(sorted, sorted[64]),
                    MrgSort4Info(lengths, true, 0b11, 1));
            PipeBarrier<PIPE_ALL>();
            GetMrgSortResult(taken[0], taken[1], taken[2], taken[3]);
          });
      std::vector<float> first(x.begin(), x.begin() + 32), second(x.begin() + 32, x.begin() + 64);
      std::sort(first.begin(), first.end(), std::greater<>());
      std::sort(second.begin(), second.end(), std::greater<>());
      // The fifth pair of the second list ends the merge; the first list's pairs with a score at
      // least as large come before it.
      const auto from_first = static_cast<uint16_t>(
          std::count_if(first.begin(), first.end(), [&](float v) { return v >= second[4]; }));
      CHECK(taken[0] == from_first);
      CHECK(taken[1] == 5);
      CHECK(taken[2] == 0);
      CHECK(taken[3] == 0);
      CHECK(z[(from_first + 4) * 2] == second[4]);
    }
  }

  TEST_CASE("GatherMask: built-in patterns, a user pattern in counter mode, block strides") {
    // What the documentation's patterns select: element i of a repeat.
    const auto selects = [](uint8_t pattern, uint32_t i) {
      return pattern == 1   ? i % 2 == 0
             : pattern == 2 ? i % 2 == 1
             : pattern == 7 ? true
                            : i % 4 == static_cast<uint32_t>(pattern - 3);
    };
    for (uint64_t seed : {25, 26, 27}) {
      std::mt19937_64 rng(seed);
      std::vector<uint16_t> x(N), y(N);
      for (uint16_t& v : x) v = static_cast<uint16_t>(rng());
      for (uint16_t& v : y) v = static_cast<uint16_t>(rng());
      uint64_t odd = 0, quarter = 0, user = 0, strided = 0;
      core_trace trace;
      const std::vector<uint16_t> z = run_tile<uint16_t, 4>(
          x, y,
          [&](LocalTensor<uint16_t>& z, LocalTensor<uint16_t>& x, LocalTensor<uint16_t>& y) {
            GatherMask(z, x, static_cast<uint8_t>(2), false, 0, {1, 1, 0, 0}, odd);
            // Two repeats of 128, 8 blocks apart: the first of every four.
            GatherMask(z[256], x, static_cast<uint8_t>(3), false, 0, {1, 2, 8, 0}, quarter);
            // Counter mode: 2 repeats of 70 elements, 4 blocks (64 elements) apart, each reading
            // the pattern from its start (src1RepeatStride 0).
            GatherMask(z[512], x, y, true, 70, {1, 2, 4, 0}, user);
            // Every element of every other block.
            GatherMask(z[768], x, static_cast<uint8_t>(7), false, 0, {2, 1, 0, 0}, strided);
          },
          &trace);
      std::vector<uint16_t> want;
      for (uint32_t i = 0; i < 128; ++i)
        if (selects(2, i)) want.push_back(x[i]);
      REQUIRE(odd == want.size());
      for (size_t k = 0; k < want.size(); ++k) CHECK(z[k] == want[k]);
      want.clear();
      for (uint32_t r = 0; r < 2; ++r)
        for (uint32_t i = 0; i < 128; ++i)
          if (selects(3, i)) want.push_back(x[r * 128 + i]);
      REQUIRE(quarter == want.size());
      for (size_t k = 0; k < want.size(); ++k) CHECK(z[256 + k] == want[k]);
      want.clear();
      for (uint32_t r = 0; r < 2; ++r)
        for (uint32_t i = 0; i < 70; ++i)
          if ((y[i / 16] >> (i % 16) & 1) != 0) want.push_back(x[r * 64 + i]);
      REQUIRE(user == want.size());
      for (size_t k = 0; k < want.size(); ++k) CHECK(z[512 + k] == want[k]);
      REQUIRE(strided == 128);
      for (uint32_t k = 0; k < 128; ++k) CHECK(z[768 + k] == x[(k / 16) * 32 + k % 16]);
      CHECK(has_api(trace, "GatherMask"));
    }
  }

  TEST_CASE("Gatherb gathers 32-byte blocks by byte offsets into strided destination blocks") {
    for (uint64_t seed : {37, 38, 39}) {
      std::mt19937_64 rng(seed);
      std::vector<uint16_t> x(N), y(N, 0);
      for (uint16_t& v : x) v = static_cast<uint16_t>(rng());
      // 16 offsets (two repeats of 8 blocks) as uint32 words: a shuffle of x's 16 blocks.
      std::vector<uint32_t> block(16);
      for (uint32_t i = 0; i < 16; ++i) block[i] = i;
      std::shuffle(block.begin(), block.end(), rng);
      for (uint32_t i = 0; i < 16; ++i) y[2 * i] = static_cast<uint16_t>(block[i] * 32);
      const std::vector<uint16_t> z = run_tile<uint16_t, 4>(
          x, y, [](LocalTensor<uint16_t>& z, LocalTensor<uint16_t>& x, LocalTensor<uint16_t>& y) {
            LocalTensor<uint32_t> offset = y.ReinterpretCast<uint32_t>();
            GatherRepeatParams params{1, 8};
            Gatherb<uint16_t>(z, x, offset, 2, params);
            GatherRepeatParams spread{2, 16};
            Gatherb(z[N], x, offset, 2, spread);
          });
      for (uint32_t i = 0; i < 16; ++i) {
        const uint32_t spread_at = N + ((i / 8) * 16 + (i % 8) * 2) * 16;
        for (uint32_t e = 0; e < 16; ++e) {
          CHECK(z[i * 16 + e] == x[block[i] * 16 + e]);
          CHECK(z[spread_at + e] == x[block[i] * 16 + e]);
        }
      }
    }
  }

  TEST_CASE("GatherMask pulls the indexes out of Sort32's (score, index) pairs") {
    for (uint64_t seed : {28, 29, 30}) {
      const std::vector<float> x = draw<float>(seed, -4, 4);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      uint64_t count = 0;
      const std::vector<float> z = run_tile<float, 2>(
          x, y, [&](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            LocalTensor<uint32_t> index = y.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, N);
            LocalTensor<float> sorted = z[256];
            Sort32(sorted, x, index, 2);  // 64 pairs = 128 words
            PipeBarrier<PIPE_V>();
            GatherMaskParams params;
            params.repeatTimes = 2;  // 128 words, 256 bytes a repeat
            params.src0BlockStride = 1;
            params.src0RepeatStride = 8;
            params.src1RepeatStride = 0;
            LocalTensor<uint32_t> indexes = z.ReinterpretCast<uint32_t>();
            GatherMask(indexes, sorted.ReinterpretCast<uint32_t>(), static_cast<uint8_t>(2), false,
                       0, params, count);
          });
      REQUIRE(count == 64);
      for (uint32_t r = 0; r < 2; ++r) {
        const std::vector<uint32_t> order = sorted_order(x, r * 32, 32);
        for (uint32_t k = 0; k < 32; ++k) {
          uint32_t index;
          std::memcpy(&index, z.data() + r * 32 + k, 4);
          CHECK(index == order[k]);
        }
      }
    }
  }

  TEST_CASE("GatherMask with only repeatTimes set gathers from consecutive repeats") {
    // As public kernels split interleaved (x, y) pairs: the default src0RepeatStride is 8 blocks.
    for (uint64_t seed : {31, 32, 33}) {
      const std::vector<float> x = draw<float>(seed, -4, 4);
      const std::vector<float> y = draw<float>(seed + 100, 0, 1);
      uint64_t count = 0;
      const std::vector<float> z = run_tile<float, 2>(
          x, y, [&](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>&) {
            GatherMaskParams params;
            params.repeatTimes = 4;  // 256 floats, 64 a repeat
            GatherMask(z, x, static_cast<uint8_t>(2), false, 0, params, count);
          });
      REQUIRE(count == 128);
      for (uint32_t k = 0; k < 128; ++k) CHECK(z[k] == x[2 * k + 1]);
    }
  }

  TEST_CASE("GatherMask refuses a built-in pattern outside 1..7 and a dst too small") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> buf;
                  pipe.InitBuffer(buf, 1024);
                  LocalTensor<float> t = buf.Get<float>();
                  uint64_t n = 0;
                  GatherMask(t[128], t, static_cast<uint8_t>(8), false, 0, {1, 1, 0, 0}, n);
                });
              },
              &message) == "bad_argument");
    CHECK(message.find("1..7") != std::string::npos);
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> src, dst;
              pipe.InitBuffer(src, 256);
              pipe.InitBuffer(dst, 32);
              LocalTensor<float> s = src.Get<float>();
              LocalTensor<float> d = dst.Get<float>();
              Duplicate(s, 1.0f, 64);
              uint64_t n = 0;
              GatherMask(d, s, static_cast<uint8_t>(1), false, 0, {1, 1, 0, 0}, n);  // 32 > 8
            });
          }) == "ub_out_of_bounds");
  }

  TEST_CASE("scan APIs: PairReduceSum and CumSum along either axis with the last row") {
    static constexpr CumSumConfig first_axis = {false, false, true};
    for (uint64_t seed : {10, 11, 12}) {
      const std::vector<float> x = draw<float>(seed, -1, 1);
      const std::vector<float> y = draw<float>(seed + 100, -1, 1);
      const std::vector<float> z = run_tile<float, 4>(
          x, y, [](LocalTensor<float>& z, LocalTensor<float>& x, LocalTensor<float>& y) {
            Duplicate(z, 0.0f, N);
            PairReduceSum(z, x, 4, 64, 1, 1, 8);  // 4 repeats of 64 -> 32 sums each, 128 B apart
            LocalTensor<float> lastAxis = z[N];
            LocalTensor<float> firstAxis = z[2 * N];
            LocalTensor<float> lastRow = z[3 * N];
            CumSum(lastAxis, lastRow, y, CumSumInfo{8, 32});
            CumSum<float, first_axis>(firstAxis, lastRow, x, CumSumInfo{8, 32});
          });
      for (uint32_t i = 0; i < N / 2; ++i) CHECK(z[i] == doctest::Approx(x[2 * i] + x[2 * i + 1]));
      for (uint32_t r = 0; r < 8; ++r) {
        float row = 0;
        for (uint32_t c = 0; c < 32; ++c) {
          row += y[r * 32 + c];
          CHECK(z[N + r * 32 + c] == doctest::Approx(row));
          float column = 0;
          for (uint32_t k = 0; k <= r; ++k) column += x[k * 32 + c];
          CHECK(z[2 * N + r * 32 + c] == doctest::Approx(column));
        }
      }
      for (uint32_t c = 0; c < 32; ++c) CHECK(z[3 * N + c] == z[2 * N + 7 * 32 + c]);
    }
  }

  TEST_CASE("system APIs: assert, scalar math, workspaces, InitGlobalMemory, cache, SyncAll") {
    for (uint64_t seed : {13, 14, 15}) {
      shim_run run;
      float* ws = run.gm<float>("workspace", N);
      float* out = run.gm<float>("out", 8);
      const float v = static_cast<float>(seed) * 0.5f;
      int64_t cycles_before = -1;
      int64_t cycles_after = -1;
      const core_trace t = run.run([&] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
        GM_ADDR user = GetUserWorkspace(reinterpret_cast<GM_ADDR>(ws));
        SetSysWorkspace(user);
        ASSERT(GetSysWorkSpacePtr() == user);
        assert(GetDataBlockSizeInBytes() == 32, "blocks are %d bytes", 32);
        GlobalTensor<float> wsGm;
        wsGm.SetGlobalBuffer((__gm__ float*)GetSysWorkSpacePtr(), N);
        cycles_before = GetSystemCycle();
        InitGlobalMemory(wsGm, N, v);
        cycles_after = GetSystemCycle();
        DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(wsGm);
        SyncAll();
        TQueSync<PIPE_MTE3, PIPE_S> sync;
        sync.SetFlag(0);
        sync.WaitFlag(0);
        GlobalTensor<float> outGm;
        outGm.SetGlobalBuffer((__gm__ float*)out, 8);
        const float w = wsGm.GetValue(N - 1);
        outGm.SetValue(0, sqrt(w));
        outGm.SetValue(1, exp(-w));
        outGm.SetValue(2, abs(-w));
        outGm.SetValue(3, min(w, 1.0f));
        outGm.SetValue(4, max(w, 1.0f));
      });
      for (uint32_t i = 0; i < N; ++i) REQUIRE(ws[i] == v);
      CHECK(out[0] == doctest::Approx(std::sqrt(v)));
      CHECK(out[1] == doctest::Approx(std::exp(-v)));
      CHECK(out[2] == v);
      CHECK(out[3] == std::min(v, 1.0f));
      CHECK(out[4] == std::max(v, 1.0f));
      CHECK(cycles_after > cycles_before);
      CHECK(has_api(t, "InitGlobalMemory"));
      CHECK(t.gm_write_bytes >= N * sizeof(float));
    }
  }

  TEST_CASE(
      "a failed kernel assert, and SyncAll over blocks run without a block runner, are reported") {
    shim_run run;
    std::string message;
    CHECK(error_kind([&] { run.run([] { ASSERT(GetBlockNum() > 4); }); }, &message) == "assertion");
    CHECK(message.find("GetBlockNum() > 4") != std::string::npos);
    run.launch.block_num = 2;
    CHECK(error_kind([&] { run.run([] { SyncAll(); }); }, &message) == "unsupported");
    CHECK(message.find("SyncAll") != std::string::npos);
  }
}

}  // namespace
}  // namespace aopt::sim
