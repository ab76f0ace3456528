// The row normalisations of the AscendC library: the SoftMax activations (SoftMax, SimpleSoftMax
// with SoftMaxTilingFunc and the documented SoftMaxTiling on the host side) and LayerNorm (with
// GetLayerNormNDTilingInfo): each checked against plain C++ on three seeded input sets, and
// traced as the documented V steps (SoftMax: row max, subtraction, exp, row sum, division;
// LayerNorm: mean, squared deviations, variance, normalisation, scale and shift) and RmsNorm (with
// GetRmsNormTilingInfo; squares, their sums, normalisation, scale), each with its
// operands' UB reads and writes and priced over the row data in float.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"
#include "sim/shim_fixture.hpp"
#include "sim/shim_rows_fixture.hpp"
#include "tiling/tiling_api.h"

// A user's tiling class holding the SoftMax library tiling, as the documentation's sample does.
namespace optiling {
BEGIN_TILING_DATA_DEF(SoftMaxSampleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LayerNormSampleTilingData)
TILING_DATA_FIELD_DEF(float, epsilon);
TILING_DATA_FIELD_DEF_STRUCT(LayerNormTiling, layernormTilingData);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(RmsNormSampleTilingData)
TILING_DATA_FIELD_DEF(float, epsilon);
TILING_DATA_FIELD_DEF_STRUCT(RmsNormTiling, rmsnormTilingData);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::at;
using testing::draw;
using testing::error_kind;
using testing::run_rows;

// Plain C++: the softmax of each row's first `valid` elements (of `k`), with its max and sum.
struct reference_rows {
  std::vector<double> dst, max, sum;
};
template <typename T>
reference_rows softmax_reference(const std::vector<T>& x, uint32_t m, uint32_t k, uint32_t valid) {
  reference_rows r{std::vector<double>(size_t{m} * k), std::vector<double>(m),
                   std::vector<double>(m)};
  for (uint32_t row = 0; row < m; ++row) {
    double mx = -INFINITY;
    for (uint32_t c = 0; c < valid; ++c) mx = std::max(mx, double(float(x[row * k + c])));
    double total = 0;
    for (uint32_t c = 0; c < valid; ++c) total += std::exp(double(float(x[row * k + c])) - mx);
    for (uint32_t c = 0; c < valid; ++c)
      r.dst[row * k + c] = std::exp(double(float(x[row * k + c])) - mx) / total;
    r.max[row] = mx;
    r.sum[row] = total;
  }
  return r;
}

// Plain C++: x * rstd * gamma per row, rstd over the first `valid` of `h` elements.
template <typename T>
std::vector<double> rms_norm_reference(const std::vector<T>& in, uint32_t rows, uint32_t h,
                                       uint32_t valid, double epsilon) {
  std::vector<double> y(size_t{rows} * h);
  for (uint32_t r = 0; r < rows; ++r) {
    double squares = 0;
    for (uint32_t c = 0; c < valid; ++c)
      squares += double(float(in[r * h + c])) * float(in[r * h + c]);
    const double rstd = 1.0 / std::sqrt(squares / valid + epsilon);
    for (uint32_t c = 0; c < h; ++c)
      y[r * h + c] = double(float(in[r * h + c])) * rstd * float(in[rows * h + c]);
  }
  return y;
}

// The call ran as the documented V steps, in order, each reading UB.
void check_steps(const core_trace& t, const char* api, const std::vector<op_class>& classes,
                 uint64_t bytes) {
  INFO(api);
  std::vector<const instruction*> steps;
  for (const instruction& in : t.instructions)
    if (std::string(in.api) == api) steps.push_back(&in);
  REQUIRE(steps.size() == classes.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO(i);
    CHECK(steps[i]->on == pipe::v);
    CHECK(steps[i]->cls == classes[i]);
    CHECK(steps[i]->bytes == bytes);
    CHECK_FALSE(steps[i]->reads.empty());
  }
}

TEST_SUITE("sim") {
  TEST_CASE("SoftMax per row with its max and sum, from the tiling SoftMaxTilingFunc filled") {
    constexpr uint32_t m = 4, k = 64, block = 8;
    constexpr uint32_t dst_bytes = m * k * 4, stats_bytes = m * block * 4;
    optiling::SoftMaxSampleTilingData host;
    host.set_totalLength(m * k);
    const ge::Shape shape(std::vector<int64_t>{2, 2, k});  // leading axes multiply into m
    CHECK(GetSoftMaxMinTmpSize(shape, sizeof(float), false) == 32);
    CHECK(GetSoftMaxMaxTmpSize(shape, sizeof(float), false) == 32);
    SoftMaxTilingFunc(shape, sizeof(float), 32, host.softmaxTilingData);
    CHECK(host.softmaxTilingData.srcM == m);
    CHECK(host.softmaxTilingData.srcK == k);
    std::vector<uint8_t> saved(host.GetDataSize());
    host.SaveToBuffer(saved.data(), saved.size());
    for (uint64_t seed : {41, 42, 43}) {
      const std::vector<float> x = draw<float>(seed, m * k, -6.0, 6.0);
      core_trace trace;
      const std::vector<uint8_t> z = run_rows<float>(
          x, dst_bytes + 2 * stats_bytes,
          [&](LocalTensor<float>& z, LocalTensor<float>& x) {
            GET_TILING_DATA_WITH_STRUCT(optiling::SoftMaxSampleTilingData, tiling, saved.data());
            SoftMax<float>(z, z[m * k], z[m * k + m * block], x, tiling.softmaxTilingData);
          },
          &trace);
      const reference_rows ref = softmax_reference(x, m, k, k);
      for (uint32_t i = 0; i < m * k; ++i)
        CHECK(at<float>(z, 0, i) == doctest::Approx(ref.dst[i]).epsilon(1e-5));
      for (uint32_t r = 0; r < m; ++r) {
        for (uint32_t b = 0; b < block; ++b) {  // one 32-byte block per row, the value in each
          CHECK(at<float>(z, dst_bytes, r * block + b) ==
                doctest::Approx(ref.sum[r]).epsilon(1e-5));
          CHECK(at<float>(z, dst_bytes + stats_bytes, r * block + b) == float(ref.max[r]));
        }
      }
      check_steps(trace, "SoftMax",
                  {op_class::vec_reduce, op_class::vec_simple, op_class::vec_div_transcendental,
                   op_class::vec_reduce, op_class::vec_div_transcendental},
                  m * k * 4);
    }
  }

  TEST_CASE("SoftMax of half data with float max and sum over the valid part of padded rows") {
    constexpr uint32_t m = 2, k = 64, valid = 57;
    constexpr uint32_t dst_bytes = m * k * 2, stats_bytes = m * 8 * 4;
    for (uint64_t seed : {51, 52, 53}) {
      const std::vector<half> x = draw<half>(seed, m * k, -4.0, 4.0);
      core_trace trace;
      const std::vector<uint8_t> z = run_rows<half>(
          x, dst_bytes + 2 * stats_bytes + dst_bytes,
          [&](LocalTensor<half>& z, LocalTensor<half>& x) {
            LocalTensor<float> stats = z.ReinterpretCast<float>()[dst_bytes / 4];
            SoftMaxTiling unused;
            SoftMax<half>(z, stats, stats[m * 8], x, unused, SoftMaxShapeInfo{m, k, m, valid});
            // The form without max and sum, with a temporary buffer, over whole rows.
            LocalTensor<uint8_t> tmp = x.ReinterpretCast<uint8_t>();
            SoftMaxTiling whole;
            whole.srcM = m;
            whole.srcK = k;
            SoftMax<half>(z[(dst_bytes + 2 * stats_bytes) / 2], x, tmp, whole);
          },
          &trace);
      const reference_rows ref = softmax_reference(x, m, k, valid);
      const reference_rows whole = softmax_reference(x, m, k, k);
      for (uint32_t r = 0; r < m; ++r) {
        for (uint32_t c = 0; c < valid; ++c)
          CHECK(at<half>(z, 0, r * k + c) == doctest::Approx(ref.dst[r * k + c]).epsilon(2e-3));
        for (uint32_t c = 0; c < k; ++c)
          CHECK(at<half>(z, dst_bytes + 2 * stats_bytes, r * k + c) ==
                doctest::Approx(whole.dst[r * k + c]).epsilon(2e-3));
        CHECK(at<float>(z, dst_bytes, r * 8 + 7) == doctest::Approx(ref.sum[r]).epsilon(1e-5));
        CHECK(at<float>(z, dst_bytes + stats_bytes, r * 8) == float(ref.max[r]));
      }
      // Two calls of five steps, priced in float width.
      std::vector<op_class> steps;
      for (int call = 0; call < 2; ++call) {
        for (op_class c :
             {op_class::vec_reduce, op_class::vec_simple, op_class::vec_div_transcendental,
              op_class::vec_reduce, op_class::vec_div_transcendental})
          steps.push_back(c);
      }
      check_steps(trace, "SoftMax", steps, m * k * 4);
    }
  }

  TEST_CASE("SimpleSoftMax normalises by a given max and sum") {
    constexpr uint32_t m = 4, k = 32, block = 8;
    constexpr uint32_t tile = m * k, stats = m * block;
    for (uint64_t seed : {61, 62, 63}) {
      const std::vector<float> x = draw<float>(seed, tile, -3.0, 3.0);
      core_trace trace;
      const std::vector<uint8_t> z = run_rows<float>(
          x, (2 * tile + 2 * stats) * 4,
          [&](LocalTensor<float>& z, LocalTensor<float>& x) {
            SoftMaxTiling tiling;
            tiling.srcM = m;
            tiling.srcK = k;
            // The max and sum of the whole rows, then the rows normalised by them again.
            SoftMax<float>(z, z[tile], z[tile + stats], x, tiling);
            SimpleSoftMax<float>(z[tile + 2 * stats], z[tile], z[tile + stats], x, tiling);
          },
          &trace);
      const reference_rows ref = softmax_reference(x, m, k, k);
      for (uint32_t i = 0; i < tile; ++i)
        CHECK(at<float>(z, (tile + 2 * stats) * 4, i) == doctest::Approx(ref.dst[i]).epsilon(1e-5));
      check_steps(trace, "SimpleSoftMax",
                  {op_class::vec_simple, op_class::vec_div_transcendental,
                   op_class::vec_div_transcendental},
                  tile * 4);
    }
  }

  TEST_CASE("SoftMax refuses rows that are not 32-byte aligned and tensors too small") {
    std::string message;
    const std::vector<float> x(64, 1.0f);
    CHECK(error_kind(
              [&] {
                run_rows<float>(x, 64 * 4, [&](LocalTensor<float>& z, LocalTensor<float>& x) {
                  SoftMaxTiling tiling;
                  SoftMax<float>(z, x, tiling, SoftMaxShapeInfo{4, 12, 4, 12});
                });
              },
              &message) != "");
    CHECK(message.find("32-byte aligned") != std::string::npos);
    // Max and sum need a 32-byte block per row: a one-block tensor for four rows is too small.
    CHECK(error_kind([&] {
            run_rows<float>(x, 64 * 4, [&](LocalTensor<float>& z, LocalTensor<float>& x) {
              SoftMaxTiling tiling;
              tiling.srcM = 4;
              tiling.srcK = 16;
              LocalTensor<float> small = z[56];
              SoftMax<float>(x, small, small, x, tiling);
            });
          }) != "");
  }

  TEST_CASE("LayerNorm per row with its mean and variance, from GetLayerNormNDTilingInfo") {
    constexpr uint32_t b = 2, s = 2, h = 32, rows = b * s, n = rows * h;
    optiling::LayerNormSampleTilingData host;
    host.set_epsilon(1e-5f);
    const ge::Shape shape(std::vector<int64_t>{b, s, h});
    uint32_t maxValue = 0, minValue = 0;
    GetLayerNormMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
    CHECK(minValue == 32);
    GetLayerNormNDTilingInfo(shape, minValue, sizeof(float), false, host.layernormTilingData);
    CHECK(host.layernormTilingData.bLength == b);
    CHECK(host.layernormTilingData.sLength == s);
    CHECK(host.layernormTilingData.hLength == h);
    std::vector<uint8_t> saved(host.GetDataSize());
    host.SaveToBuffer(saved.data(), saved.size());
    for (uint64_t seed : {71, 72, 73}) {
      // x, then gamma and beta, in one input tile.
      const std::vector<float> in = draw<float>(seed, n + 2 * h, -2.0, 2.0);
      core_trace trace;
      const std::vector<uint8_t> z = run_rows<float>(
          in, (n + 16) * 4,
          [&](LocalTensor<float>& z, LocalTensor<float>& in) {
            GET_TILING_DATA_WITH_STRUCT(optiling::LayerNormSampleTilingData, tiling, saved.data());
            LayerNorm<float>(z, z[n], z[n + 8], in, in[n], in[n + h], tiling.epsilon,
                             tiling.layernormTilingData);
          },
          &trace);
      for (uint32_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (uint32_t c = 0; c < h; ++c) mean += in[r * h + c];
        mean /= h;
        for (uint32_t c = 0; c < h; ++c) var += (in[r * h + c] - mean) * (in[r * h + c] - mean);
        var /= h;
        CHECK(at<float>(z, n * 4, r) == doctest::Approx(mean).epsilon(1e-4));
        CHECK(at<float>(z, (n + 8) * 4, r) == doctest::Approx(var).epsilon(1e-4));
        for (uint32_t c = 0; c < h; ++c) {
          const double expected =
              (in[r * h + c] - mean) / std::sqrt(var + 1e-5) * in[n + c] + in[n + h + c];
          CHECK(at<float>(z, 0, r * h + c) == doctest::Approx(expected).epsilon(1e-4));
        }
      }
      check_steps(trace, "LayerNorm",
                  {op_class::vec_reduce, op_class::vec_mul, op_class::vec_reduce,
                   op_class::vec_div_transcendental, op_class::vec_mul},
                  n * 4);
    }
  }

  TEST_CASE("LayerNorm of half data over the valid part of padded rows, with a tmp buffer") {
    constexpr uint32_t rows = 2, h = 32, valid = 29, n = rows * h;
    for (uint64_t seed : {81, 82, 83}) {
      const std::vector<half> in = draw<half>(seed, n + 2 * h, -2.0, 2.0);
      const std::vector<uint8_t> z =
          run_rows<half>(in, (n + 32) * 2, [&](LocalTensor<half>& z, LocalTensor<half>& in) {
            LayerNormTiling tiling;
            tiling.bLength = 1;
            tiling.sLength = rows;
            tiling.hLength = h;
            tiling.originalHLength = valid;
            LocalTensor<uint8_t> tmp = in.ReinterpretCast<uint8_t>();  // left untouched
            LayerNorm<half>(z, z[n], z[n + 16], in, in[n], in[n + h], tmp, half(1e-5f), tiling);
          });
      for (uint32_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (uint32_t c = 0; c < valid; ++c) mean += float(in[r * h + c]);
        mean /= valid;
        for (uint32_t c = 0; c < valid; ++c)
          var += (float(in[r * h + c]) - mean) * (float(in[r * h + c]) - mean);
        var /= valid;
        CHECK(at<half>(z, n * 2, r) == doctest::Approx(mean).epsilon(2e-3).scale(1));
        for (uint32_t c = 0; c < valid; ++c) {
          const double expected =
              (float(in[r * h + c]) - mean) / std::sqrt(var + 1e-5) * float(in[n + c]) +
              float(in[n + h + c]);
          CHECK(at<half>(z, 0, r * h + c) == doctest::Approx(expected).epsilon(4e-3).scale(1));
        }
      }
    }
  }

  TEST_CASE("RmsNorm per row, from the tiling GetRmsNormTilingInfo filled") {
    constexpr uint32_t b = 2, s = 3, h = 64, rows = b * s, n = rows * h;
    optiling::RmsNormSampleTilingData host;
    host.set_epsilon(1e-6f);
    const ge::Shape shape(std::vector<int64_t>{b, s, h});
    uint32_t maxValue = 0, minValue = 0;
    CHECK(GetRmsNormMaxMinTmpSize(shape, sizeof(float), maxValue, minValue));
    CHECK(minValue == 32);
    CHECK(GetRmsNormTilingInfo(shape, shape, minValue, sizeof(float), host.rmsnormTilingData));
    CHECK(host.rmsnormTilingData.bLength == b);
    CHECK(host.rmsnormTilingData.sLength == s);
    CHECK(host.rmsnormTilingData.hLength == h);
    CHECK(host.rmsnormTilingData.originalHLength == h);
    CHECK(host.rmsnormTilingData.reciprocalOfHLength == doctest::Approx(1.0 / h));
    std::vector<uint8_t> saved(host.GetDataSize());
    host.SaveToBuffer(saved.data(), saved.size());
    for (uint64_t seed : {91, 92, 93}) {
      // x, then gamma, in one input tile.
      const std::vector<float> in = draw<float>(seed, n + h, -2.0, 2.0);
      core_trace trace;
      const std::vector<uint8_t> z = run_rows<float>(
          in, n * 4,
          [&](LocalTensor<float>& z, LocalTensor<float>& in) {
            GET_TILING_DATA_WITH_STRUCT(optiling::RmsNormSampleTilingData, tiling, saved.data());
            LocalTensor<uint8_t> tmp = in.ReinterpretCast<uint8_t>();  // left untouched
            RmsNorm<float, false>(z, in, in[n], tmp, tiling.epsilon, tiling.rmsnormTilingData);
          },
          &trace);
      const std::vector<double> ref = rms_norm_reference(in, rows, h, h, 1e-6);
      for (uint32_t i = 0; i < n; ++i)
        CHECK(at<float>(z, 0, i) == doctest::Approx(ref[i]).epsilon(1e-5));
      check_steps(trace, "RmsNorm",
                  {op_class::vec_mul, op_class::vec_reduce, op_class::vec_div_transcendental,
                   op_class::vec_mul},
                  n * 4);
    }
  }

  TEST_CASE("RmsNorm of half data over the valid part of padded rows; unaligned H is refused") {
    constexpr uint32_t rows = 2, h = 32, valid = 27, n = rows * h;
    RmsNormTiling tiling;
    const ge::Shape padded(std::vector<int64_t>{1, rows, h});
    const ge::Shape origin(std::vector<int64_t>{1, rows, valid});
    CHECK(GetRmsNormTilingInfo(padded, origin, 32, sizeof(half), tiling));
    CHECK(tiling.originalHLength == valid);
    for (uint64_t seed : {94, 95, 96}) {
      const std::vector<half> in = draw<half>(seed, n + h, -2.0, 2.0);
      const std::vector<uint8_t> z =
          run_rows<half>(in, n * 2, [&](LocalTensor<half>& z, LocalTensor<half>& in) {
            RmsNorm<half>(z, in, in[n], half(1e-5f), tiling);
          });
      const std::vector<double> ref = rms_norm_reference(in, rows, h, valid, 1e-5);
      for (uint32_t i = 0; i < n; ++i)
        CHECK(at<half>(z, 0, i) == doctest::Approx(ref[i]).epsilon(4e-3).scale(1));
    }
    // 20 halves are 40 bytes: the library needs H 32-byte aligned.
    const ge::Shape unaligned(std::vector<int64_t>{1, rows, 20});
    CHECK_FALSE(GetRmsNormTilingInfo(unaligned, unaligned, 32, sizeof(half), tiling));
    std::string message;
    CHECK(error_kind(
              [&] {
                const std::vector<half> in = draw<half>(97, 64, -1.0, 1.0);
                run_rows<half>(in, 64 * 2, [&](LocalTensor<half>& z, LocalTensor<half>& in) {
                  RmsNormTiling bad;
                  bad.bLength = 1;
                  bad.sLength = 2;
                  bad.hLength = 20;
                  RmsNorm<half>(z, in, in, half(1e-5f), bad);
                });
              },
              &message) != "");
    CHECK(message.find("32-byte aligned") != std::string::npos);
  }
}

}  // namespace
}  // namespace aopt::sim
