// The reference's delivery (driver_expected.hpp): what the reference encodes, the judge reads back
// copied or in place, and the parent checks without reading the values.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "npu/sim/runtime/driver_codec.hpp"
#include "npu/sim/runtime/driver_expected.hpp"

namespace aopt::sim {
namespace {

npu::op_spec two_outputs() {
  npu::op_spec op;
  op.name = "pair";
  for (const char* name : {"y", "z"}) {
    npu::tensor_spec t;
    t.name = name;
    t.type = npu::dtype::float32;
    t.shape = {5};
    op.outputs.push_back(t);
  }
  return op;
}

expected_outputs sample(std::string failure) {
  expected_outputs e;
  e.failure = std::move(failure);
  for (int set = 0; set < 2; ++set) {
    expected_set s;
    s.outputs = {{1.5 + set, -2, 3, 4, 5}, {0.25, 0.5, 0.75, 1, 1.25 * set}};
    s.input_fingerprints = {7u + static_cast<uint64_t>(set)};
    e.sets.push_back(s);
  }
  return e;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("expected outputs read in place are the values encoded, aligned after any message") {
    const npu::op_spec op = two_outputs();
    // Messages of every length modulo 8: the doubles after them stay aligned.
    for (const std::string failure : {"", "a", "seven c", "eight ch", "nine char"}) {
      INFO("failure message of ", failure.size(), " bytes");
      const expected_outputs encoded = sample(failure);
      const std::string bytes = encode_expected(encoded);
      const expected_outputs copied = decode_expected(bytes, op);
      const expected_outputs viewed = view_expected(bytes, op);
      CHECK(copied.failure == failure);
      CHECK(viewed.failure == failure);
      REQUIRE(viewed.sets.size() == 2);
      for (size_t set = 0; set < 2; ++set) {
        CHECK(viewed.sets[set].outputs.empty());
        CHECK(viewed.sets[set].input_fingerprints == encoded.sets[set].input_fingerprints);
        for (size_t i = 0; i < 2; ++i) {
          const double* values = viewed.sets[set].values(i);
          CHECK(reinterpret_cast<uintptr_t>(values) % alignof(double) == 0);
          CHECK(std::vector<double>(values, values + 5) == encoded.sets[set].outputs[i]);
          CHECK(copied.sets[set].values(i)[4] == encoded.sets[set].outputs[i][4]);
        }
      }
      CHECK_NOTHROW(check_expected(bytes, op));
    }
  }

  TEST_CASE("a truncated or misaligned expected delivery is malformed, however it is read") {
    const npu::op_spec op = two_outputs();
    const std::string bytes = encode_expected(sample("x"));
    const std::string truncated = bytes.substr(0, bytes.size() - 12);
    CHECK_THROWS_AS(decode_expected(truncated, op), malformed_delivery);
    CHECK_THROWS_AS(view_expected(truncated, op), malformed_delivery);
    CHECK_THROWS_AS(check_expected(truncated, op), malformed_delivery);
    // The same bytes one place off an 8-byte boundary cannot be read in place.
    std::string shifted(bytes.size() + 1, '\0');
    shifted.replace(1, bytes.size(), bytes);
    const std::string_view off(shifted.data() + 1, bytes.size());
    if (reinterpret_cast<uintptr_t>(off.data()) % alignof(double) != 0) {
      CHECK_THROWS_AS(view_expected(off, op), malformed_delivery);
    }
    CHECK(decode_expected(off, op).sets.size() == 2);  // a copy needs no alignment
  }
}

}  // namespace aopt::sim
