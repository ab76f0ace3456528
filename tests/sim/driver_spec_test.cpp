// The driver's reading of the spec the parent hands it: op.json (the one parser of
// npu/protocol), defaults, the settings and refusals.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "npu/sim/runtime/driver_spec.hpp"

namespace aopt::sim {
namespace {

nlohmann::json minimal_spec() {
  return {{"op",
           {{"name", "relu_custom"},
            {"inputs", {{{"name", "x"}, {"dtype", "half"}, {"shape", {2, 16}}}}},
            {"outputs", {{{"name", "y"}, {"dtype", "uint8"}, {"shape", {2, 16}}}}}}}};
}

std::string error_of(const nlohmann::json& j) {
  try {
    parse_driver_spec(j);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("a minimal spec takes op.json's defaults and the driver's settings") {
    const driver_spec s = parse_driver_spec(minimal_spec());
    CHECK(s.op.kernel_entry == "relu_custom");
    CHECK(s.op.tiling_func == "TilingFunc");
    CHECK(s.op.seed == 1);
    CHECK(s.op.inputs[0].type == npu::dtype::float16);
    CHECK(s.op.inputs[0].range_lo == -1);
    CHECK(s.op.inputs[0].range_hi == 1);
    CHECK(s.op.inputs[0].numel() == 32);
    CHECK(s.op.io_bytes() == 32 * 2 + 32 * 1);
    CHECK(s.input_sets == 3);
    CHECK(s.detect_races);
    CHECK(s.hw.name == "ascend910b4");
    CHECK(s.op.tolerance_for(s.op.outputs[0]).rtol == 0);  // integers are exact
  }

  TEST_CASE("an explicit tolerance overrides the per-dtype defaults for every output") {
    nlohmann::json j = minimal_spec();
    CHECK(parse_driver_spec(j)
              .op.tolerance_for(npu::tensor_spec{"a", npu::dtype::bfloat16, {}, 0, 0})
              .rtol == 4e-3);
    j["op"]["tolerance"] = {{"rtol", 0.05}};
    const driver_spec s = parse_driver_spec(j);
    CHECK(s.op.tolerance_for(s.op.outputs[0]).rtol == 0.05);
    CHECK(s.op.tolerance_for(s.op.outputs[0]).atol == 1e-3);
  }

  TEST_CASE("malformed specs are refused naming the field") {
    nlohmann::json j = minimal_spec();
    j["op"]["outputs"] = nlohmann::json::array();
    CHECK(error_of(j) == "op.outputs: an operator needs at least one output");
    j = minimal_spec();
    j["op"]["inputs"][0]["shape"] = {2, -1};
    CHECK(error_of(j) == "op.inputs[0].shape[1]: expected a positive integer, got -1");
    j = minimal_spec();
    j["op"]["inputs"][0]["range"] = {3, 1};
    CHECK(error_of(j) == "op.inputs[0].range: lo is greater than hi: [3,1]");
    j = minimal_spec();
    j["op"]["attrs"] = {{{"name", "k"}, {"type", "int"}, {"value", 1.5}}};
    CHECK(error_of(j) == "op.attrs[0].value: 1.5 is not a int");
    j = minimal_spec();
    j["input_sets"] = 0;
    CHECK(error_of(j) == "input_sets: expected 1..100, got 0");
    j = minimal_spec();
    j["op"]["inputs"][0]["shape"] = {1 << 20, 1 << 20};
    CHECK(error_of(j) == "op.inputs[0].shape: [1048576,1048576] has more than 4294967296 elements");
  }
}

}  // namespace aopt::sim
