// Pad of the AscendC library (with PadTilingFunc and GetPadMaxMinTmpSize on the host side): the
// rows of a [height, width] tensor padded to 32 bytes with padValue, in both documented scenarios
// (a width that is not 32-byte aligned grows; an aligned one has its redundant last columns
// filled), checked against plain C++ on three seeded input sets and traced as one V instruction
// reading the source and writing the padded tensor.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"
#include "sim/shim_fixture.hpp"
#include "sim/shim_rows_fixture.hpp"
#include "tiling/tiling_api.h"

// A user's tiling class holding the Pad library tiling.
namespace optiling {
BEGIN_TILING_DATA_DEF(PadSampleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF_STRUCT(PadTiling, padTilingData);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::at;
using testing::draw;
using testing::error_kind;
using testing::run_rows;

TEST_SUITE("sim") {
  TEST_CASE("Pad grows half rows of 15 to 16 and fills the new column with padValue") {
    constexpr uint32_t height = 16, width = 15, padded = 16;
    optiling::PadSampleTilingData host;
    host.set_rows(height);
    const ge::Shape shape(std::vector<int64_t>{height, width});
    uint32_t maxValue = 0, minValue = 0;
    GetPadMaxMinTmpSize(shape, sizeof(half), maxValue, minValue);
    CHECK(minValue == 32);
    PadTilingFunc(shape, shape, minValue, sizeof(half), host.padTilingData);
    CHECK(host.padTilingData.srcHeight == height);
    CHECK(host.padTilingData.srcWidth == width);
    CHECK(host.padTilingData.srcOriWidth == width);
    std::vector<uint8_t> saved(host.GetDataSize());
    host.SaveToBuffer(saved.data(), saved.size());
    for (uint64_t seed : {91, 92, 93}) {
      const std::vector<half> x = draw<half>(seed, height * width + 16, -8.0, 8.0);
      core_trace trace;
      const std::vector<uint8_t> z = run_rows<half>(
          x, height * padded * sizeof(half),
          [&](LocalTensor<half>& z, LocalTensor<half>& x) {
            GET_TILING_DATA_WITH_STRUCT(optiling::PadSampleTilingData, tiling, saved.data());
            PadParams params;
            params.rightPad = padded - width;
            params.padValue = 7;
            Pad(z, x, params, tiling.padTilingData);
          },
          &trace);
      for (uint32_t r = 0; r < height; ++r) {
        for (uint32_t c = 0; c < width; ++c)
          CHECK(at<half>(z, 0, r * padded + c) == float(x[r * width + c]));
        CHECK(at<half>(z, 0, r * padded + width) == 7.0f);
      }
      uint32_t pads = 0;
      for (const instruction& in : trace.instructions) {
        if (std::string(in.api) != "Pad") continue;
        ++pads;
        CHECK(in.on == pipe::v);
        CHECK(in.cls == op_class::vec_simple);
        CHECK(in.bytes == height * padded * sizeof(half));
        CHECK_FALSE(in.reads.empty());
        CHECK_FALSE(in.writes.empty());
      }
      CHECK(pads == 1);
    }
  }

  TEST_CASE("Pad fills the redundant last columns of aligned float rows, in place too") {
    constexpr uint32_t height = 4, width = 16, valid = 13;
    for (uint64_t seed : {94, 95, 96}) {
      const std::vector<float> x = draw<float>(seed, height * width, -8.0, 8.0);
      const std::vector<uint8_t> z = run_rows<float>(
          x, 2 * height * width * sizeof(float), [&](LocalTensor<float>& z, LocalTensor<float>& x) {
            PadTiling tiling;
            const ge::Shape shape(std::vector<int64_t>{height, width});
            const ge::Shape ori(std::vector<int64_t>{height, valid});
            PadTilingFunc(shape, ori, 32, sizeof(float), tiling);
            PadParams params;
            params.rightPad = width - valid;
            params.padValue = -1;
            LocalTensor<uint8_t> tmp = z[height * width].ReinterpretCast<uint8_t>();
            Pad(z, x, params, tmp, tiling);
            // In place, with another value: the source is the destination.
            Adds(z[height * width], x, 0.0f, height * width);
            params.padValue = 3;
            Pad(z[height * width], z[height * width], params, tiling);
          });
      for (uint32_t r = 0; r < height; ++r) {
        for (uint32_t c = 0; c < width; ++c) {
          const float expected = c < valid ? x[r * width + c] : -1.0f;
          CHECK(at<float>(z, 0, r * width + c) == expected);
          const float in_place = c < valid ? x[r * width + c] : 3.0f;
          CHECK(at<float>(z, height * width * 4, r * width + c) == in_place);
        }
      }
    }
  }

  TEST_CASE("Pad refuses left padding and a rightPad that misses the aligned width") {
    const std::vector<float> x(64, 1.0f);
    for (const auto& [left, right] : {std::pair<uint16_t, uint16_t>{1, 3}, {0, 2}}) {
      std::string message;
      CHECK(error_kind(
                [&] {
                  run_rows<float>(x, 64 * 4, [&](LocalTensor<float>& z, LocalTensor<float>& x) {
                    PadTiling tiling;
                    tiling.srcHeight = 4;
                    tiling.srcWidth = 16;
                    tiling.srcOriWidth = 13;
                    PadParams params;
                    params.leftPad = left;
                    params.rightPad = right;
                    Pad(z, x, params, tiling);
                  });
                },
                &message) != "");
      CHECK(message.find("Pad") != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace aopt::sim
