// The one op.json parser, read directly: as a file ("op.json: field: reason") and nested in the
// driver's spec ("op.field: reason"), and what the daemon writes for the driver reads back equal.
#include "npu/protocol/op_spec.hpp"

#include <doctest/doctest.h>

#include <cmath>
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
  TEST_CASE("an output may start at -inf or inf, a floating-point one only, and writes back so") {
    json j = relu_op();
    j["outputs"][0]["dtype"] = "float32";
    j["outputs"][0]["init"] = "-inf";
    auto low = parse_op_spec(j, "op.json");
    REQUIRE_MESSAGE(low.ok(), low.error().to_string());
    CHECK(low->outputs[0].init == tensor_spec::initial::value);
    CHECK(std::isinf(low->outputs[0].init_value));
    CHECK(low->outputs[0].init_value < 0);
    json written;
    to_json(written, *low);
    CHECK(written["outputs"][0]["init"] == "-inf");
    auto again = parse_op_spec(written, "op.json");
    REQUIRE(again.ok());
    CHECK(again->outputs[0].init_value == low->outputs[0].init_value);
    j["outputs"][0]["init"] = "inf";
    auto high = parse_op_spec(j, "op.json");
    REQUIRE(high.ok());
    CHECK(high->outputs[0].init_value > 0);
    CHECK(std::isinf(high->outputs[0].init_value));
    j["outputs"][0]["dtype"] = "int32";
    CHECK(file_error(j) ==
          "op.json: outputs[0].init: an output of dtype int32 cannot start at infinity; give a "
          "number");
    j["outputs"][0]["dtype"] = "float16";
    j["outputs"][0]["init"] = "nan";
    CHECK(file_error(j).find("expected \"zeros\", \"none\", \"inf\", \"-inf\"") !=
          std::string::npos);
  }

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
    CHECK(nested_error(json::array()) == "op: expected an object, got an array");
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

  TEST_CASE("absent, scratch and in-place tensors parse, read back equal, and size as declared") {
    json j = relu_op();
    j["inputs"].push_back({{"name", "bias"}, {"dtype", "half"}, {"absent", true}});
    j["inputs"].push_back(
        {{"name", "stage"}, {"dtype", "float32"}, {"shape", {4}}, {"scratch", true}});
    j["inputs"].push_back(
        {{"name", "sizes"}, {"dtype", "int32"}, {"shape", {2}}, {"value_depend", true}});
    j["outputs"].push_back({{"name", "x_out"}, {"inplace", "x"}});
    auto daemon = parse_op_spec(j);
    REQUIRE_MESSAGE(daemon.ok(), daemon.error().message());
    CHECK(daemon->inputs[1].absent);
    CHECK(daemon->inputs[1].numel() == 0);
    CHECK(daemon->inputs[1].bytes() == 0);
    CHECK(daemon->inputs[2].scratch);
    CHECK_FALSE(daemon->inputs[0].scratch);
    CHECK(daemon->inputs[3].value_depend);
    CHECK_FALSE(daemon->inputs[0].value_depend);
    // The in-place output is its input: dtype, shape and initial contents.
    const tensor_spec& updated = daemon->outputs[1];
    CHECK(updated.inplace_of == "x");
    CHECK(updated.type == dtype::float16);
    CHECK(updated.shape == std::vector<int64_t>{2, 16});
    CHECK(updated.init == tensor_spec::initial::copy);
    CHECK(updated.init_source == "x");
    const json written = *daemon;
    CHECK_FALSE(written["inputs"][1].contains("shape"));
    auto driver = parse_nested_op_spec(written, "op");
    REQUIRE_MESSAGE(driver.ok(), driver.error().message());
    CHECK(json(*driver) == written);
    // Without the keys nothing is written: an existing operator's spec reads as before.
    const json plain = *parse_op_spec(relu_op());
    for (const char* key : {"absent", "scratch", "inplace", "value_depend"}) {
      CHECK_FALSE(plain["inputs"][0].contains(key));
      CHECK_FALSE(plain["outputs"][0].contains(key));
    }
  }

  TEST_CASE("wrong absent, scratch and in-place declarations are named with the reason") {
    json j = relu_op();
    j["inputs"].push_back({{"name", "bias"}, {"dtype", "half"}, {"shape", {2}}, {"absent", true}});
    CHECK(file_error(j) ==
          "op.json: inputs[1].shape: an absent input has no shape (it is left out of the call)");
    j = relu_op();
    j["inputs"].push_back({{"name", "bias"}, {"dtype", "half"}});
    CHECK(file_error(j) == "op.json: inputs[1].shape: missing");
    j = relu_op();
    j["outputs"][0]["scratch"] = true;
    CHECK(file_error(j) == "op.json: outputs[0].scratch: only inputs can be declared so");
    j = relu_op();
    j["outputs"][0]["value_depend"] = true;
    CHECK(file_error(j) == "op.json: outputs[0].value_depend: only inputs can be declared so");
    j = relu_op();
    j["inputs"].push_back(
        {{"name", "bias"}, {"dtype", "half"}, {"absent", true}, {"value_depend", true}});
    CHECK(file_error(j) ==
          "op.json: inputs[1].value_depend: an absent input holds no values to depend on");
    j = relu_op();
    j["inputs"][0]["absent"] = "yes";
    CHECK(file_error(j) == "op.json: inputs[0].absent: expected true or false, got \"yes\"");
    j = relu_op();
    j["outputs"].push_back({{"name", "w"}, {"inplace", "v"}});
    CHECK(file_error(j) == "op.json: outputs[1].inplace: no input named 'v'");
    j["outputs"][1] = {{"name", "w"}, {"inplace", "x"}, {"dtype", "float32"}};
    CHECK(file_error(j) == "op.json: outputs[1].dtype: differs from input 'x' it updates in place");
    j["outputs"][1] = {{"name", "w"}, {"inplace", "x"}, {"shape", {32}}};
    CHECK(file_error(j) == "op.json: outputs[1].shape: differs from input 'x' it updates in place");
    j["outputs"][1] = {{"name", "w"}, {"inplace", "x"}, {"init", "zeros"}};
    CHECK(file_error(j) ==
          "op.json: outputs[1].init: an in-place output starts as its input; it takes no init");
    j["outputs"][1] = {{"name", "w"}, {"inplace", "x"}};
    j["outputs"].push_back({{"name", "w2"}, {"inplace", "x"}});
    CHECK(file_error(j) ==
          "op.json: outputs[2].inplace: input 'x' is already updated by another output");
    j = relu_op();
    j["inputs"][0]["inplace"] = "x";
    CHECK(file_error(j) == "op.json: inputs[0].inplace: only outputs update an input in place");
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
