// Concat of the AscendC sort APIs in the A2/A3 layout: the scores copied one to one into the
// tensor Sort reads, so that Concat followed by Sort (the documented order) sorts as Sort on the
// scores does; checked on three seeded input sets and traced as one V instruction.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "sim/shim_fixture.hpp"
#include "sim/shim_rows_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::at;
using testing::draw;
using testing::error_kind;
using testing::run_rows;

TEST_SUITE("sim") {
  TEST_CASE("Concat prepares the scores Sort sorts, 16 per repeat") {
    constexpr uint32_t n = 64;  // two repeats of Sort's 32, four of Concat's 16
    for (uint64_t seed : {101, 102, 103}) {
      const std::vector<float> x = draw<float>(seed, n, -5.0, 5.0);
      core_trace trace;
      // Out: the concat tensor (n), then the sorted pairs (2n), then Sort's tmp (n).
      const std::vector<uint8_t> z = run_rows<float>(
          x, 4 * n * sizeof(float),
          [&](LocalTensor<float>& z, LocalTensor<float>& x) {
            LocalTensor<float> concat = z;
            LocalTensor<float> tmp = z[3 * n];
            Concat(concat, x, tmp, n / 16);
            LocalTensor<uint32_t> index = tmp.ReinterpretCast<uint32_t>();
            CreateVecIndex(index, 0u, n);
            Sort<float, true>(z[n], concat, index, tmp, n / 32);
          },
          &trace);
      for (uint32_t i = 0; i < n; ++i) CHECK(at<float>(z, 0, i) == x[i]);
      std::vector<uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t b) { return x[a] > x[b]; });
      for (uint32_t k = 0; k < n; ++k) {
        CHECK(at<float>(z, n * 4, 2 * k) == x[order[k]]);
        uint32_t index = 0;
        std::memcpy(&index, z.data() + n * 4 + k * 8 + 4, 4);
        CHECK(index == order[k]);
      }
      uint32_t concats = 0;
      for (const instruction& in : trace.instructions) {
        if (std::string(in.api) != "Concat") continue;
        ++concats;
        CHECK(in.on == pipe::v);
        CHECK(in.cls == op_class::vec_simple);
        CHECK(in.bytes == n * sizeof(float));
        CHECK_FALSE(in.reads.empty());
        CHECK_FALSE(in.writes.empty());
      }
      CHECK(concats == 1);
    }
    // A repeat count beyond the documented 0..255 is refused.
    const std::vector<float> x(64, 1.0f);
    std::string message;
    CHECK(error_kind(
              [&] {
                run_rows<float>(x, 64 * 4, [&](LocalTensor<float>& z, LocalTensor<float>& x) {
                  LocalTensor<float> concat = z;
                  Concat(concat, x, z, 256);
                });
              },
              &message) != "");
    CHECK(message.find("repeatTime") != std::string::npos);
  }
}

}  // namespace
}  // namespace aopt::sim
