// The judge's vectorised tolerance pass (tolerance_scan.hpp) answers what the scalar formula
// answers, element by element: on values inside, on the bound itself, just outside it, and on
// NaN, infinities, subnormals and the poison patterns, for every floating element type.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "npu/sim/runtime/element_codec.hpp"
#include "npu/sim/runtime/tolerance_scan.hpp"

namespace aopt::sim {
namespace {

bool scalar_all_within(npu::dtype type, const std::vector<uint8_t>& actual,
                       const std::vector<double>& expected, double atol, double rtol) {
  const uint32_t size = npu::dtype_size(type);
  for (size_t i = 0; i < expected.size(); ++i) {
    const double a = decode_element(actual.data() + i * size, type);
    const double e = expected[i];
    if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e) && std::fabs(e) <= DBL_MAX)) return false;
  }
  return true;
}

// Raw elements of `type` with random bits, and expected values near what they decode to.
void random_case(std::mt19937_64& rng, npu::dtype type, size_t n, std::vector<uint8_t>& actual,
                 std::vector<double>& expected, double atol, double rtol) {
  const uint32_t size = npu::dtype_size(type);
  actual.resize(n * size);
  expected.resize(n);
  std::uniform_int_distribution<int> kind(0, 9);
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t b = 0; b < size; ++b) actual[i * size + b] = static_cast<uint8_t>(rng());
    const double a = decode_element(actual.data() + i * size, type);
    const double bound = atol + rtol * std::fabs(a);
    switch (kind(rng)) {
      case 0:  // exactly on the bound (as far as doubles go)
        expected[i] = std::isfinite(a) ? a + bound : a;
        break;
      case 1:  // just outside
        expected[i] = std::isfinite(a) ? a + 2 * bound + 1e-3 : 0.0;
        break;
      case 2:
        expected[i] = std::numeric_limits<double>::quiet_NaN();
        break;
      case 3:
        expected[i] = -std::numeric_limits<double>::infinity();
        break;
      default:
        expected[i] = std::isfinite(a) ? a : 1.0;
    }
  }
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("the vectorised tolerance pass answers as the scalar formula does") {
    const std::optional<bool> probe =
        all_within_vectorised(npu::dtype::float16, nullptr, nullptr, 0, 0, 0);
    if (!probe) {
      MESSAGE("this CPU has no vectorised pass; the scalar pass is the judge's");
      return;
    }
    CHECK(*probe);
    // Integer outputs have no vectorised pass: the scalar one judges them.
    CHECK_FALSE(all_within_vectorised(npu::dtype::int32, nullptr, nullptr, 0, 0, 0).has_value());

    std::mt19937_64 rng(2026);
    uint64_t agreed_true = 0, agreed_false = 0;
    for (const npu::dtype type : {npu::dtype::float16, npu::dtype::bfloat16, npu::dtype::float32}) {
      for (int trial = 0; trial < 400; ++trial) {
        const size_t n = 1 + static_cast<size_t>(rng() % 41);  // tails of every length
        const double atol = trial % 3 == 0 ? 0.0 : 1e-3;
        const double rtol = trial % 2 == 0 ? 1e-3 : 0.0;
        std::vector<uint8_t> actual;
        std::vector<double> expected;
        random_case(rng, type, n, actual, expected, atol, rtol);
        // Half the trials keep only elements that pass, so both answers are exercised.
        if (trial % 2 == 0) {
          const uint32_t size = npu::dtype_size(type);
          for (size_t i = 0; i < n; ++i) {
            const double a = decode_element(actual.data() + i * size, type);
            expected[i] = std::isfinite(a) ? a : 0.5;
            if (!std::isfinite(a)) encode_element(0.5, type, actual.data() + i * size);
          }
        }
        const bool want = scalar_all_within(type, actual, expected, atol, rtol);
        const std::optional<bool> got =
            all_within_vectorised(type, actual.data(), expected.data(), n, atol, rtol);
        REQUIRE(got.has_value());
        CHECK_MESSAGE(*got == want, "type ", npu::to_string(type), " n ", n, " trial ", trial);
        (want ? agreed_true : agreed_false)++;
      }
    }
    CHECK(agreed_true > 100);
    CHECK(agreed_false > 100);
  }
}

}  // namespace aopt::sim
