// Bulk half <-> float conversion (half_convert.hpp) gives, bit for bit, what the one-element forms
// of kernel_numeric.hpp give: every half, every float at and around each rounding boundary of the
// halves, NaNs of every kind wherever they sit in a group of 8, and lengths that leave a tail.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "npu/sim/runtime/half_convert.hpp"
#include "npu/sim/runtime/kernel_numeric.hpp"

namespace aopt::sim::kernel {
namespace {

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// The floats whose conversion is hardest to get right: each half's value, the midpoints to its
// neighbours and one float ulp either side of them, with both signs; then NaNs (quiet and
// signalling, with payloads), infinities, float subnormals and the overflow boundary.
std::vector<float> boundary_floats() {
  std::vector<float> out;
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    const uint32_t lo = float_bits(f16_to_f32(static_cast<uint16_t>(h)));
    const uint32_t hi = float_bits(f16_to_f32(static_cast<uint16_t>(h + 1)));
    const uint32_t mid = lo + (hi - lo) / 2;
    for (uint32_t b : {lo, mid - 1, mid, mid + 1, hi - 1}) {
      out.push_back(bits_float(b));
      out.push_back(bits_float(b | 0x80000000u));
    }
  }
  for (uint32_t b : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u,
                     0x7fffffffu, 0xff812345u, 0x00000001u, 0x807fffffu, 0x477fefffu, 0x477ff000u,
                     0x477ff001u, 0x7f7fffffu, 0x33000000u, 0x33000001u, 0xb3000000u}) {
    out.push_back(bits_float(b));
  }
  return out;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("every half converts to the float the one-element form gives, NaN payloads too") {
    // Lengths of 65536 + 3 leave a tail after the groups of 8; the NaNs (0x7c01..0x7fff and
    // 0xfc01..0xffff) fall in groups of their own and in groups beside ordinary values.
    for (size_t offset : {size_t{0}, size_t{3}}) {
      std::vector<uint16_t> halves;
      for (size_t i = 0; i < offset; ++i) halves.push_back(0x3c00);
      for (uint32_t h = 0; h <= 0xffffu; ++h) halves.push_back(static_cast<uint16_t>(h));
      std::vector<float> got(halves.size());
      halves_to_floats(halves.data(), got.data(), halves.size());
      size_t mismatches = 0;
      for (size_t i = 0; i < halves.size(); ++i) {
        if (float_bits(got[i]) != float_bits(f16_to_f32(halves[i]))) ++mismatches;
      }
      CHECK(mismatches == 0);
    }
  }

  TEST_CASE("floats convert to the halves the one-element form gives: ties to even, NaN, inf") {
    std::vector<float> floats = boundary_floats();
    for (size_t offset : {size_t{0}, size_t{5}}) {
      std::vector<float> shifted(offset, 1.0f);
      shifted.insert(shifted.end(), floats.begin(), floats.end());
      std::vector<uint16_t> got(shifted.size());
      floats_to_halves(shifted.data(), got.data(), shifted.size());
      size_t mismatches = 0;
      for (size_t i = 0; i < shifted.size(); ++i) {
        if (got[i] != f32_to_f16(shifted[i])) ++mismatches;
      }
      CHECK(mismatches == 0);
    }
    // A NaN takes the canonical half NaN of the scalar form, not the hardware's payload.
    std::vector<float> nan_group = {1.0f, 2.0f, bits_float(0x7f812345u), 4.0f, 5.0f, 6.0f,
                                    7.0f, 8.0f};
    std::vector<uint16_t> out(nan_group.size());
    floats_to_halves(nan_group.data(), out.data(), nan_group.size());
    CHECK(out[2] == 0x7e00);
    CHECK(out[0] == 0x3c00);
    CHECK(out[7] == 0x4800);
  }

  TEST_CASE("a half's signalling NaN stays signalling, as in the one-element form") {
    std::vector<uint16_t> group = {0x7c01, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00};
    std::vector<float> out(group.size());
    halves_to_floats(group.data(), out.data(), group.size());
    CHECK(float_bits(out[0]) == 0x7f802000u);
    CHECK(out[1] == 1.0f);
  }
}

}  // namespace aopt::sim::kernel
