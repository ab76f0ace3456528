// The one op.json parser, read directly: as a file ("op.json: field: reason") and nested in the
// driver's spec ("op.field: reason"), and what the daemon writes for the driver reads back equal.
#include "npu/protocol/op_spec.hpp"

#include <doctest/doctest.h>

#include <string>

using nlohmann::json;

namespace aopt::npu {
namespace {

json relu_op() {
  return {{"name", "relu_custom"},
          {"inputs", {{{"name", "x"}, {"dtype", "half"}, {"shape", {2, 16}}}}},
          {"outputs", {{{"name", "y"}, {"dtype", "uint8"}, {"shape", {2, 16}}}}}};
}

std::string file_error(const json& j, const std::string& file = "op.json") {
  auto r = parse_op_spec(j, file);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == status_code::invalid_argument);
  return r.error().message();
}

std::string nested_error(const json& j) {
  auto r = parse_nested_op_spec(j, "op");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == status_code::invalid_argument);
  return r.error().message();
}

}  // namespace

TEST_SUITE("protocol") {
  TEST_CASE("a bad field is named with its path and the reason, in the file and nested") {
    json j = relu_op();
    j["outputs"] = json::array();
    CHECK(file_error(j) == "op.json: outputs: an operator needs at least one output");
    CHECK(nested_error(j) == "op.outputs: an operator needs at least one output");
    j = relu_op();
    j["inputs"][0]["shape"] = {2, -1};
    CHECK(file_error(j) == "op.json: inputs[0].shape[1]: expected a positive integer, got -1");
    CHECK(nested_error(j) == "op.inputs[0].shape[1]: expected a positive integer, got -1");
    j = relu_op();
    j["inputs"][0]["dtype"] = "float8";
    CHECK(file_error(j, "/ops/relu/op.json") ==
          "/ops/relu/op.json: inputs[0].dtype: unknown dtype 'float8'");
    CHECK(nested_error(j) == "op.inputs[0].dtype: unknown dtype 'float8'");
    j = relu_op();
    j["tolerance"] = {{"rtol", -1}};
    CHECK(nested_error(j) == "op.tolerance: values must be >= 0 and max_error_ratio <= 1");
    j = relu_op();
    j["validation_shapes"] = {{{"w", {2, 16}}}};
    CHECK(nested_error(j) == "op.validation_shapes[0].w: no input or output of that name");
    CHECK(nested_error(json::array()) == "op: expected an object, got array");
    j = relu_op();
    j["seed"] = -1;
    CHECK(nested_error(j) == "op.seed: expected a non-negative integer, got -1");
    j["seed"] = 7;  // a signed integer, as JSON built in C++ holds it
    REQUIRE(parse_nested_op_spec(j, "op").ok());
    CHECK(parse_nested_op_spec(j, "op")->seed == 7);
  }

  TEST_CASE("the op the daemon writes for the driver reads back equal, defaults filled in") {
    json j = relu_op();
    j["attrs"] = {{{"name", "alpha"}, {"type", "float"}, {"value", 0.5}}};
    j["tolerance"] = {{"rtol", 0.05}};
    auto daemon = parse_op_spec(j);
    REQUIRE(daemon.ok());
    const json written = *daemon;
    auto driver = parse_nested_op_spec(written, "op");
    REQUIRE_MESSAGE(driver.ok(), driver.error().message());
    CHECK(json(*driver) == written);
    CHECK(driver->kernel_entry == "relu_custom");
    CHECK(driver->inputs[0].type == dtype::float16);
    CHECK(driver->outputs[0].range_lo == 0);  // unsigned outputs default to [0, 1]
    CHECK(driver->io_bytes() == 32 * 2 + 32 * 1);
    CHECK(driver->tolerance_for(driver->outputs[0]).rtol == 0.05);
    CHECK(driver->tolerance_for(driver->outputs[0]).atol == 1e-3);
  }

  TEST_CASE("without a tolerance each output takes its dtype's default") {
    auto s = parse_op_spec(relu_op());
    REQUIRE(s.ok());
    CHECK_FALSE(s->has_tolerance);
    CHECK(s->tolerance_for(s->outputs[0]).rtol == 0);  // integers are exact
    CHECK(s->tolerance_for(tensor_spec{"a", dtype::bfloat16, {}, 0, 0}).rtol == 4e-3);
    CHECK(default_tolerance(dtype::float32).max_error_ratio == doctest::Approx(1e-4));
  }
}

}  // namespace aopt::npu
