// Element encoding for the driver: inputs are rounded to their dtype exactly as the device
// stores them, and the poison pattern is recognisable in every dtype.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "npu/sim/runtime/element_codec.hpp"
#include "npu/sim/runtime/input_generator.hpp"

namespace aopt::sim {
namespace {

uint16_t half_bits(double v) {
  uint16_t bits = 0;
  encode_element(v, npu::dtype::float16, &bits);
  return bits;
}

uint16_t bf16_bits(double v) {
  uint16_t bits = 0;
  encode_element(v, npu::dtype::bfloat16, &bits);
  return bits;
}

npu::tensor_spec tensor(npu::dtype t, std::vector<int64_t> shape, double lo, double hi) {
  npu::tensor_spec d;
  d.name = "x";
  d.type = t;
  d.shape = std::move(shape);
  d.range_lo = lo;
  d.range_hi = hi;
  return d;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("float16 encoding rounds to nearest even, saturates to infinity and keeps subnormals") {
    CHECK(half_bits(1.0) == 0x3C00);
    CHECK(half_bits(-2.0) == 0xC000);
    CHECK(half_bits(65504.0) == 0x7BFF);
    CHECK(half_bits(65520.0) == 0x7C00);  // halfway to the next binade rounds to infinity
    CHECK(half_bits(1e9) == 0x7C00);
    CHECK(half_bits(std::ldexp(1.0, -24)) == 0x0001);            // smallest subnormal
    CHECK(half_bits(std::ldexp(1.0, -26)) == 0x0000);            // below half of it
    CHECK(half_bits(1.0 + std::ldexp(1.0, -11)) == 0x3C00);      // tie -> even mantissa
    CHECK(half_bits(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02);  // tie -> even (up)
    const uint16_t quiet_nan = 0x7E00;
    CHECK(std::isnan(decode_element(&quiet_nan, npu::dtype::float16)));
    const double values[] = {
        0.0, 1.0, -0.333251953125, 1023.5, 6.103515625e-05, 5.9604644775390625e-08};
    for (double v : values) CHECK(round_to_element(v, npu::dtype::float16) == v);
  }

  TEST_CASE("bfloat16 encoding keeps 8 significant bits with ties to even") {
    CHECK(bf16_bits(1.0) == 0x3F80);
    CHECK(bf16_bits(-1.0) == 0xBF80);
    CHECK(bf16_bits(1.0 + std::ldexp(1.0, -8)) == 0x3F80);      // tie -> even
    CHECK(bf16_bits(1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);  // tie -> even (up)
    CHECK(round_to_element(3.14159, npu::dtype::bfloat16) == 3.140625);
    CHECK(std::isinf(round_to_element(1e39, npu::dtype::bfloat16)));
  }

  TEST_CASE("integer encoding rounds and saturates to the type's range") {
    CHECK(round_to_element(2.5, npu::dtype::int32) == 2);
    CHECK(round_to_element(-3.7, npu::dtype::int8) == -4);
    CHECK(round_to_element(300, npu::dtype::int8) == 127);
    CHECK(round_to_element(-5, npu::dtype::uint8) == 0);
    CHECK(round_to_element(0.2, npu::dtype::boolean) == 1);
    CHECK(round_to_element(std::nan(""), npu::dtype::int16) == 0);
  }

  TEST_CASE("poison is recognised in every dtype and floats decode it as NaN") {
    for (npu::dtype t :
         {npu::dtype::float32, npu::dtype::float16, npu::dtype::bfloat16, npu::dtype::int8,
          npu::dtype::int32, npu::dtype::int64, npu::dtype::boolean}) {
      std::vector<uint8_t> bytes(3 * npu::dtype_size(t));
      fill_poison(bytes.data(), t, 3);
      CHECK(is_poison(bytes.data() + 2 * npu::dtype_size(t), t));
      if (is_floating(t)) CHECK(std::isnan(decode_element(bytes.data(), t)));
      encode_element(0.0, t, bytes.data());
      CHECK_FALSE(is_poison(bytes.data(), t));
    }
  }

  TEST_CASE("generated inputs are deterministic per seed, within range and rounded to the dtype") {
    const npu::tensor_spec x = tensor(npu::dtype::float16, {4, 64}, -2, 3);
    std::mt19937_64 a(42), b(42), c(43);
    const auto first = generate_input(x, a);
    CHECK(first == generate_input(x, b));
    CHECK(first != generate_input(x, c));
    const auto values = decode_tensor(x, first.data());
    REQUIRE(values.size() == 256);
    for (double v : values) {
      CHECK(v >= -2);
      CHECK(v <= 3);
      CHECK(round_to_element(v, npu::dtype::float16) == v);
    }
  }

  TEST_CASE("integer inputs cover the inclusive range and clamp it to the dtype") {
    std::mt19937_64 rng(1);
    const npu::tensor_spec small = tensor(npu::dtype::int8, {1000}, -2, 2);
    const auto values = decode_tensor(small, generate_input(small, rng).data());
    bool seen_lo = false, seen_hi = false;
    for (double v : values) {
      CHECK(v == std::round(v));
      seen_lo = seen_lo || v == -2;
      seen_hi = seen_hi || v == 2;
    }
    CHECK(seen_lo);
    CHECK(seen_hi);
    const npu::tensor_spec wide = tensor(npu::dtype::uint8, {500}, -1000, 1000);
    for (double v : decode_tensor(wide, generate_input(wide, rng).data())) {
      CHECK(v >= 0);
      CHECK(v <= 255);
    }
  }

  TEST_CASE("inputs that are not noise: sorted rows, offsets, permutations, masks, normals") {
    using draw = npu::tensor_spec::distribution;
    std::mt19937_64 rng(7);
    npu::tensor_spec offsets = tensor(npu::dtype::int32, {3, 50}, 0, 1000);
    offsets.draw = draw::sorted;
    const auto sorted = decode_tensor(offsets, generate_input(offsets, rng).data());
    for (size_t r = 0; r < 3; ++r) {
      CHECK(std::is_sorted(sorted.begin() + static_cast<long>(r * 50),
                           sorted.begin() + static_cast<long>(r * 50 + 50)));
    }
    CHECK_FALSE(std::is_sorted(sorted.begin(), sorted.end()));  // rows, not the whole tensor

    // CSR offsets: each row ascending from the range's low end to its high end, so that row
    // r's segments partition [lo, hi] (fbgemm-ascend's offsets_range, segment_sum_csr).
    npu::tensor_spec csr = tensor(npu::dtype::int64, {3, 9}, 0, 640);
    csr.draw = draw::offsets;
    const auto bounds = decode_tensor(csr, generate_input(csr, rng).data());
    for (size_t r = 0; r < 3; ++r) {
      CHECK(bounds[r * 9] == 0);
      CHECK(bounds[r * 9 + 8] == 640);
      CHECK(std::is_sorted(bounds.begin() + static_cast<long>(r * 9),
                           bounds.begin() + static_cast<long>(r * 9 + 9)));
    }
    CHECK(bounds[4] != bounds[13]);  // the rows are drawn, not a fixed split

    npu::tensor_spec index = tensor(npu::dtype::int64, {4, 32}, -5, 5);
    index.draw = draw::permutation;
    const auto perm = decode_tensor(index, generate_input(index, rng).data());
    for (size_t r = 0; r < 4; ++r) {
      std::vector<double> row(perm.begin() + static_cast<long>(r * 32),
                              perm.begin() + static_cast<long>(r * 32 + 32));
      const std::vector<double> unshuffled = row;
      std::sort(row.begin(), row.end());
      for (size_t i = 0; i < 32; ++i) CHECK(row[i] == static_cast<double>(i));
      CHECK(row != unshuffled);
    }

    npu::tensor_spec mask = tensor(npu::dtype::uint8, {1000}, 3, 9);
    mask.draw = draw::mask;
    size_t ones = 0;
    for (double v : decode_tensor(mask, generate_input(mask, rng).data())) {
      CHECK((v == 0 || v == 1));
      ones += v == 1;
    }
    CHECK(ones > 400);
    CHECK(ones < 600);

    npu::tensor_spec normal = tensor(npu::dtype::float32, {4000}, -3, 9);
    normal.draw = draw::normal;
    double sum = 0;
    size_t near_middle = 0;
    for (double v : decode_tensor(normal, generate_input(normal, rng).data())) {
      CHECK(v >= -3);
      CHECK(v <= 9);
      sum += v;
      near_middle += std::abs(v - 3) <= 2;  // one standard deviation: about 68 %
    }
    CHECK(sum / 4000 == doctest::Approx(3).epsilon(0.05));
    CHECK(near_middle > 2500);
    CHECK(near_middle < 2950);

    // The default draws what it always drew: a uniform input is unchanged by the feature.
    const npu::tensor_spec plain = tensor(npu::dtype::float32, {64}, -1, 1);
    npu::tensor_spec explicit_uniform = plain;
    explicit_uniform.draw = draw::uniform;
    std::mt19937_64 a(5), b(5);
    CHECK(generate_input(plain, a) == generate_input(explicit_uniform, b));
  }

  TEST_CASE("inputs drawn in chunks are the bytes of one draw per element over the whole tensor") {
    // The definition (input_generator.hpp): one distribution, one draw per element in order,
    // rounded to the dtype. 3 chunks and an odd tail, so that a normal draw's second value of a
    // pair crosses a chunk boundary.
    using draw = npu::tensor_spec::distribution;
    const int64_t n = 3 * 4096 + 7;
    auto encoded = [](const npu::tensor_spec& t, const std::vector<double>& values) {
      std::vector<uint8_t> bytes(values.size() * npu::dtype_size(t.type));
      for (size_t i = 0; i < values.size(); ++i) {
        encode_element(values[i], t.type, bytes.data() + i * npu::dtype_size(t.type));
      }
      return bytes;
    };
    auto definition = [&](const npu::tensor_spec& t, std::mt19937_64& rng) {
      std::vector<double> v(static_cast<size_t>(n));
      const bool real = t.type == npu::dtype::float16 || t.type == npu::dtype::float32;
      const double lo = real ? t.range_lo : std::ceil(t.range_lo);
      const double hi = real ? t.range_hi : std::floor(t.range_hi);
      std::normal_distribution<double> normal((lo + hi) / 2, (hi - lo) / 6);
      std::uniform_real_distribution<double> uniform(lo, hi);
      std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(lo),
                                                     static_cast<int64_t>(hi));
      std::bernoulli_distribution coin(0.5);
      for (double& x : v) {
        if (t.draw == draw::mask) {
          x = coin(rng) ? 1.0 : 0.0;
        } else if (t.draw == draw::normal) {
          x = real ? std::clamp(normal(rng), lo, hi) : std::clamp(std::round(normal(rng)), lo, hi);
        } else {
          x = real ? uniform(rng) : static_cast<double>(integer(rng));
        }
      }
      return encoded(t, v);
    };
    for (const auto& [type, distribution] :
         std::vector<std::pair<npu::dtype, draw>>{{npu::dtype::float16, draw::uniform},
                                                  {npu::dtype::float32, draw::normal},
                                                  {npu::dtype::int32, draw::uniform},
                                                  {npu::dtype::int32, draw::normal},
                                                  {npu::dtype::uint8, draw::mask}}) {
      npu::tensor_spec t = tensor(type, {n}, -7.5, 20.25);
      if (type == npu::dtype::uint8) t.range_lo = 0;
      t.draw = distribution;
      INFO(npu::to_string(type), " distribution ", static_cast<int>(distribution));
      std::mt19937_64 a(11), b(11);
      std::vector<uint8_t> into(t.bytes());
      generate_input_into(t, a, into.data());
      CHECK(into == definition(t, b));
      CHECK(a() == b());  // the same number of draws: the next input continues in step
    }
  }
}

}  // namespace aopt::sim
