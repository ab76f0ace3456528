#include "npu/protocol/dtype.hpp"

#include "npu/protocol/name_table.hpp"

namespace aopt::npu {

namespace {

// Canonical names first: to_string returns the first name of each type.
constexpr enum_name<dtype> dtype_names[] = {
    {dtype::float32, "float32"}, {dtype::float16, "float16"}, {dtype::bfloat16, "bfloat16"},
    {dtype::int8, "int8"},       {dtype::uint8, "uint8"},     {dtype::int16, "int16"},
    {dtype::int32, "int32"},     {dtype::int64, "int64"},     {dtype::boolean, "bool"},
    {dtype::float32, "float"},   {dtype::float32, "fp32"},    {dtype::float16, "half"},
    {dtype::float16, "fp16"},    {dtype::bfloat16, "bf16"},   {dtype::boolean, "boolean"},
};

}  // namespace

const char* to_string(dtype t) {
  return name_of(dtype_names, t);
}

bool parse_dtype(const std::string& text, dtype& out) {
  return value_named(dtype_names, text, out);
}

uint32_t dtype_size(dtype t) {
  switch (t) {
    case dtype::float32:
      return 4;
    case dtype::float16:
      return 2;
    case dtype::bfloat16:
      return 2;
    case dtype::int8:
      return 1;
    case dtype::uint8:
      return 1;
    case dtype::int16:
      return 2;
    case dtype::int32:
      return 4;
    case dtype::int64:
      return 8;
    case dtype::boolean:
      return 1;
  }
  return 0;
}

}  // namespace aopt::npu
