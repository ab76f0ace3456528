// The output and input checks of the driver, element by element.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "npu/sim/runtime/element_codec.hpp"
#include "npu/sim/runtime/tensor_check.hpp"

namespace aopt::sim {
namespace {

npu::tensor_spec output(npu::dtype t, std::vector<int64_t> shape) {
  npu::tensor_spec d;
  d.name = "z";
  d.type = t;
  d.shape = std::move(shape);
  return d;
}

std::vector<uint8_t> encode(const npu::tensor_spec& t, const std::vector<double>& values) {
  std::vector<uint8_t> bytes(t.bytes());
  for (size_t i = 0; i < values.size(); ++i) {
    encode_element(values[i], t.type, bytes.data() + i * npu::dtype_size(t.type));
  }
  return bytes;
}

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("values within atol + rtol * |expected| pass; NaN and infinities must match exactly") {
    const npu::tensor_spec z = output(npu::dtype::float32, {4});
    const npu::tolerance tol{1e-3, 1e-3, 0};
    const std::vector<double> expected = {100.0, 0.0, nan, -inf};
    CHECK_FALSE(compare_output(z, encode(z, {100.1, 0.0009, nan, -inf}).data(), expected, tol));
    const auto far = compare_output(z, encode(z, {100.2, 0.0, nan, -inf}).data(), expected, tol);
    REQUIRE(far);
    CHECK(far->kind == "mismatch");
    CHECK(far->message.find("first at index 0: expected 100, actual 100.2") != std::string::npos);
    CHECK(compare_output(z, encode(z, {100.0, 0.0, 1.0, -inf}).data(), expected, tol));
    CHECK(compare_output(z, encode(z, {100.0, 0.0, nan, inf}).data(), expected, tol));
    // A finite value is infinitely far from an infinite one, however large the relative bound.
    CHECK(compare_output(z, encode(z, {100.0, 0.0, nan, -1e30}).data(), expected, tol));
  }

  TEST_CASE("a few bad elements within max_error_ratio pass, unless one is not finite") {
    const npu::tensor_spec z = output(npu::dtype::float16, {1000});
    std::vector<double> expected(1000, 1.0);
    std::vector<double> actual(1000, 1.0);
    const npu::tolerance tol{1e-3, 1e-3, 1e-2};
    actual[10] = 2.0;
    CHECK_FALSE(compare_output(z, encode(z, actual).data(), expected, tol));
    for (int i = 0; i < 11; ++i) actual[100 + i] = 2.0;  // 12 of 1000 > 1%
    CHECK(compare_output(z, encode(z, actual).data(), expected, tol));
    actual.assign(1000, 1.0);
    actual[999] = inf;
    const auto f = compare_output(z, encode(z, actual).data(), expected, tol);
    REQUIRE(f);
    CHECK(f->message.find("index 999: expected 1, actual inf") != std::string::npos);
  }

  TEST_CASE("integer outputs must match exactly by default and report multi-dimensional indices") {
    const npu::tensor_spec z = output(npu::dtype::int32, {2, 3});
    const std::vector<double> expected = {1, 2, 3, 4, 5, 6};
    CHECK_FALSE(compare_output(z, encode(z, expected).data(), expected, default_tolerance(z.type)));
    const auto f = compare_output(z, encode(z, {1, 2, 3, 4, 6, 6}).data(), expected,
                                  default_tolerance(z.type));
    REQUIRE(f);
    CHECK(f->message.find("1 of 6 elements") != std::string::npos);
    CHECK(f->message.find("first at index 4 [1, 1]: expected 5, actual 6") != std::string::npos);
  }

  TEST_CASE(
      "poison left in an output is unwritten_output, even for integers, where it mismatches") {
    const npu::tensor_spec z = output(npu::dtype::int8, {64});
    std::vector<uint8_t> bytes(64);
    fill_poison(bytes.data(), z.type, 64);
    for (int i = 0; i < 32; ++i) encode_element(1.0, z.type, bytes.data() + i);
    const auto f =
        compare_output(z, bytes.data(), std::vector<double>(64, 1.0), default_tolerance(z.type));
    REQUIRE(f);
    CHECK(f->kind == "unwritten_output");
    CHECK(f->message.find("32 of 64 elements were never written") != std::string::npos);
    CHECK(f->message.find("first at index 32") != std::string::npos);

    // 0x5A is 90 in int8: a kernel that computes 90 there wrote a correct value.
    CHECK_FALSE(compare_output(
        z, bytes.data(),
        [] {
          std::vector<double> e(64, 90.0);
          for (int i = 0; i < 32; ++i) e[i] = 1.0;
          return e;
        }(),
        default_tolerance(z.type)));
  }

  TEST_CASE("alternating poison variants expose an unwritten integer that equals one poison") {
    const npu::tensor_spec z = output(npu::dtype::int8, {8});
    const std::vector<double> expected(8, 90.0);  // 90 is the byte 0x5A, poison variant 0
    for (uint32_t variant : {0u, 1u}) {
      std::vector<uint8_t> bytes(8);
      fill_poison(bytes.data(), z.type, 8, variant);
      const auto f = compare_output(z, bytes.data(), expected, default_tolerance(z.type), variant);
      CHECK(f.has_value() == (variant == 1));
    }
  }

  TEST_CASE("a changed input is reported with its first changed element, before and after") {
    const npu::tensor_spec x = output(npu::dtype::bfloat16, {8});
    const auto before = encode(x, {0, 1, 2, 3, 4, 5, 6, 7});
    CHECK_FALSE(check_input_unchanged(x, before.data(), before.data()));
    auto after = encode(x, {0, 1, 2, 3, 4, 5, -6, 7});
    const auto f = check_input_unchanged(x, before.data(), after.data());
    REQUIRE(f);
    CHECK(f->kind == "input_modified");
    CHECK(
        f->message ==
        "input z was modified by the kernel: 1 elements changed, first at index 6: was 6, now -6");
  }
}

}  // namespace aopt::sim
