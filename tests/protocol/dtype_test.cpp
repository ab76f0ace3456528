// op.json's dtype names: the one enum the daemon and the candidate-side driver share.
#include "npu/protocol/dtype.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>

namespace aopt::npu {

TEST_SUITE("protocol") {
  TEST_CASE("every dtype's canonical name parses back to it, with its size") {
    const std::pair<dtype, uint32_t> all[] = {
        {dtype::float32, 4}, {dtype::float16, 2}, {dtype::bfloat16, 2},
        {dtype::int8, 1},    {dtype::uint8, 1},   {dtype::int16, 2},
        {dtype::int32, 4},   {dtype::int64, 8},   {dtype::boolean, 1}};
    for (const auto& [type, size] : all) {
      CAPTURE(to_string(type));
      dtype back = type == dtype::float32 ? dtype::int8 : dtype::float32;
      CHECK(parse_dtype(to_string(type), back));
      CHECK(back == type);
      CHECK(dtype_size(type) == size);
    }
    CHECK(std::string(to_string(dtype::boolean)) == "bool");
    CHECK(std::string(to_string(dtype::bfloat16)) == "bfloat16");
  }

  TEST_CASE("dtype names parse with their aliases") {
    const std::pair<const char*, dtype> aliases[] = {
        {"float", dtype::float32}, {"fp32", dtype::float32},  {"half", dtype::float16},
        {"fp16", dtype::float16},  {"bf16", dtype::bfloat16}, {"boolean", dtype::boolean}};
    for (const auto& [name, type] : aliases) {
      CAPTURE(name);
      dtype t = dtype::int64;
      CHECK(parse_dtype(name, t));
      CHECK(t == type);
    }
    dtype t{};
    CHECK_FALSE(parse_dtype("float8", t));
    CHECK_FALSE(parse_dtype("Float16", t));
    CHECK_FALSE(parse_dtype("", t));
  }
}

}  // namespace aopt::npu
