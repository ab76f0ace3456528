// What op.json says the framework hands a kernel beyond fresh tensors (issue 34 item 3): an
// output updated in place (the kernel has no argument for it), a scratch input the kernel may
// update, an optional input the call leaves out. tests/data/ops/inplace_update has all three.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "npu/evaluate_on_simulator.hpp"
#include "npu/op_package.hpp"
#include "npu/validation_shapes.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path declared_package = fs::path(AOPT_TEST_DATA_DIR) / "ops" / "inplace_update";

aopt::npu::op_package load_declared(const fs::path& dir) {
  auto op = aopt::npu::load_op_package(dir);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// A copy of the declared_package in `dir` with `edit` applied to its op.json.
template <typename Edit>
fs::path edited_copy(const aopt::testing::temp_dir& dir, Edit edit) {
  const fs::path copy = dir.path() / "inplace_update";
  fs::copy(declared_package, copy, fs::copy_options::recursive);
  nlohmann::json spec = nlohmann::json::parse(std::ifstream(copy / "op.json"));
  edit(spec);
  std::ofstream(copy / "op.json") << spec.dump(1);
  return copy;
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("a kernel updating its input in place, with scratch and absent inputs, evaluates ok") {
    const auto r = aopt::testing::evaluate_on_simulator(load_declared(declared_package));
    CHECK_MESSAGE(r.ok(), nlohmann::json(r).dump(1));
  }

  TEST_CASE("an in-place output takes its input's validation shape, named or not") {
    const aopt::npu::op_package op = load_declared(declared_package);
    const auto reshaped = aopt::npu::with_shapes(op, {{"var", {4, 1024}}});
    CHECK(reshaped.spec.outputs[0].shape == std::vector<int64_t>{4, 1024});
    // Another input's shape leaves it alone.
    const auto other = aopt::npu::with_shapes(op, {{"delta", {4, 1024}}});
    CHECK(other.spec.outputs[0].shape == std::vector<int64_t>{8, 2048});
  }

  TEST_CASE("a kernel writing an input not declared scratch is an input modification, named") {
    aopt::testing::temp_dir dir;
    const fs::path copy =
        edited_copy(dir, [](nlohmann::json& spec) { spec["inputs"][3].erase("scratch"); });
    const auto r = aopt::testing::evaluate_on_simulator(load_declared(copy));
    CHECK(r.status == aopt::npu::eval_status::precision_error);
    CHECK(r.error_kind == "input_modified");
    CHECK_MESSAGE(r.message.find("input stage") != std::string::npos, r.message);
    // The message says how a declared_package declares an update it means.
    CHECK(r.message.find("\"scratch\": true") != std::string::npos);
  }

  TEST_CASE("an in-place output is judged by the reference, not passed by its initial copy") {
    // The kernel stores var back without adding delta: the output still holds var's values,
    // which is what it started as.
    aopt::testing::temp_dir dir;
    const fs::path copy = edited_copy(dir, [](nlohmann::json&) {});
    const fs::path kernel = copy / "op_kernel" / "inplace_update.cpp";
    std::stringstream text;
    text << std::ifstream(kernel).rdbuf();
    std::string source = text.str();
    const std::string add = "AscendC::Add(sum, acc, d, n);";
    REQUIRE(source.find(add) != std::string::npos);
    source.replace(source.find(add), add.size(), "AscendC::Adds(sum, acc, 0.0f, n);");
    std::ofstream(kernel) << source;
    const auto r = aopt::testing::evaluate_on_simulator(load_declared(copy));
    CHECK(r.status == aopt::npu::eval_status::precision_error);
    CHECK_MESSAGE(r.message.find("var_out") != std::string::npos, r.message);
  }

  TEST_CASE("an output named like an input is CANN's ref output, with an argument of its own") {
    // tests/data/ops/hypot: Output("x") beside Input("x"), the kernel hypot(x, y, x_ref, ...)
    // (an entry named like the C library's hypot, which the shim's headers declare).
    const auto op = load_declared(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "hypot");
    REQUIRE(op.spec.outputs.size() == 1);
    CHECK(op.spec.outputs[0].inplace_of == "x");
    CHECK(op.spec.outputs[0].has_own_argument());
    CHECK(op.spec.outputs[0].shape == op.spec.inputs[0].shape);
    const auto r = aopt::testing::evaluate_on_simulator(op);
    CHECK_MESSAGE(r.ok(), nlohmann::json(r).dump(1));
    CHECK(r.latency_us > 0);

    // The output is judged: a kernel that leaves x as it was mismatches.
    aopt::testing::temp_dir dir;
    const fs::path copy = dir.path() / "hypot";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "hypot", copy, fs::copy_options::recursive);
    const fs::path kernel = copy / "op_kernel" / "hypot.cpp";
    std::stringstream text;
    text << std::ifstream(kernel).rdbuf();
    std::string source = text.str();
    const std::string add = "Add(c, a, b, tileLength_);";
    REQUIRE(source.find(add) != std::string::npos);
    source.replace(source.find(add), add.size(), "Adds(c, a, 0.0f, tileLength_);");
    std::ofstream(kernel) << source;
    const auto wrong = aopt::testing::evaluate_on_simulator(load_declared(copy));
    CHECK(wrong.status == aopt::npu::eval_status::precision_error);

    // A ref output names only its own input.
    nlohmann::json spec = nlohmann::json::parse(std::ifstream(copy / "op.json"));
    spec["outputs"][0]["inplace"] = "y";
    std::ofstream(copy / "op.json") << spec.dump(1);
    const auto refused = aopt::npu::load_op_package(copy);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message().find("ref output") != std::string::npos);
  }
}
