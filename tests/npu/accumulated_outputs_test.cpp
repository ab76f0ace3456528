// Outputs an operator accumulates into (npu/accumulated_outputs.hpp): without an "init" in
// op.json they start as zeros, as the frameworks allocate them, and every result says so; an
// op.json init is kept; a kernel that does not accumulate, or only mentions SetAtomicAdd in a
// comment, keeps poison-initialised outputs. Checked on a package we did not write
// (../shared/wild, when present) and on our own.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "npu/evaluate_on_simulator.hpp"
#include "npu/op_package.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using aopt::npu::tensor_spec;

namespace {

aopt::npu::op_package load(const fs::path& dir) {
  auto op = aopt::npu::load_op_package(dir);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// A copy of `from` at `to` with op.json's outputs stripped of "init" and `edit` applied to the
// kernel file's text.
void copy_without_init(const fs::path& from, const fs::path& to,
                       const std::function<std::string(std::string)>& edit = {}) {
  fs::copy(from, to, fs::copy_options::recursive);
  nlohmann::json spec = nlohmann::json::parse(std::ifstream(to / "op.json"));
  for (auto& out : spec["outputs"]) out.erase("init");
  std::ofstream(to / "op.json", std::ios::trunc) << spec.dump(2);
  if (!edit) return;
  const fs::path kernel = to / spec["files"]["kernel"].get<std::string>();
  std::stringstream text;
  text << std::ifstream(kernel).rdbuf();
  std::ofstream(kernel, std::ios::trunc) << edit(text.str());
}

}  // namespace

TEST_SUITE("accumulated outputs") {
  TEST_CASE("an accumulating kernel's outputs without init start as zeros, and results say so") {
    aopt::testing::temp_dir work;
    copy_without_init(fs::path(AOPT_TEST_DATA_DIR) / "ops/team_layout_add", work.path() / "op");
    const aopt::npu::op_package op = load(work.path() / "op");
    REQUIRE(op.spec.outputs.size() == 1);
    CHECK(op.spec.outputs[0].init == tensor_spec::initial::value);
    CHECK(op.spec.outputs[0].init_value == 0);
    REQUIRE(op.assumptions.size() == 1);
    CHECK(op.assumptions[0].rfind("output 'z' starts as zeros", 0) == 0);
    const aopt::npu::eval_result r = aopt::testing::evaluate_on_simulator(op);
    REQUIRE_MESSAGE(r.ok(), r.message);
    REQUIRE_FALSE(r.warnings.empty());
    CHECK(r.warnings[0] == op.assumptions[0]);
  }

  TEST_CASE("an op.json init is kept, and nothing is assumed") {
    const aopt::npu::op_package op = load(fs::path(AOPT_TEST_DATA_DIR) / "ops/team_layout_add");
    CHECK(op.spec.outputs[0].init == tensor_spec::initial::value);
    CHECK(op.assumptions.empty());
    // "init": "none" says poison in so many words: kept, and written back as it was given.
    aopt::testing::temp_dir work;
    copy_without_init(fs::path(AOPT_TEST_DATA_DIR) / "ops/team_layout_add", work.path() / "op");
    nlohmann::json spec = nlohmann::json::parse(std::ifstream(work.path() / "op" / "op.json"));
    spec["outputs"][0]["init"] = "none";
    std::ofstream(work.path() / "op" / "op.json", std::ios::trunc) << spec.dump(2);
    const aopt::npu::op_package poison = load(work.path() / "op");
    CHECK(poison.spec.outputs[0].init == tensor_spec::initial::poison);
    CHECK(poison.assumptions.empty());
    CHECK(nlohmann::json(poison.spec).at("outputs").at(0).at("init") == "none");
  }

  TEST_CASE("a kernel that does not accumulate, or names SetAtomicAdd in a comment, keeps poison") {
    const aopt::npu::op_package plain =
        load(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom");
    CHECK(plain.assumptions.empty());
    for (const tensor_spec& out : plain.spec.outputs) CHECK(out.init == tensor_spec::initial::none);
    aopt::testing::temp_dir work;
    copy_without_init(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom", work.path() / "op",
                      [](std::string k) {
                        return "// no SetAtomicAdd here; \"SetAtomicAdd\" only in words\n" + k;
                      });
    const aopt::npu::op_package commented = load(work.path() / "op");
    CHECK(commented.assumptions.empty());
    for (const tensor_spec& out : commented.spec.outputs) {
      CHECK(out.init == tensor_spec::initial::none);
    }
  }

  TEST_CASE("a public operator that accumulates atomically evaluates ok as it is") {
    const fs::path wild =
        (fs::path(AOPT_SOURCE_DIR) / ".." / "shared" / "wild" / "ds_roiaware_avgpool3d_grad")
            .lexically_normal();
    if (!fs::is_directory(wild)) {
      MESSAGE("skipped: no wild set at " << wild.string());
      return;
    }
    const aopt::npu::op_package op = load(wild);
    CHECK_FALSE(op.assumptions.empty());
    const aopt::npu::eval_result r = aopt::testing::evaluate_on_simulator(op);
    CHECK_MESSAGE(r.ok(), r.message);
  }
}
