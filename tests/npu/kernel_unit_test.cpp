// The kernel as one text (npu/kernel_unit.hpp): a kernel file that includes its own header
// (tests/data/ops/team_layout_add, laid out as teams do) gets the header's code in place of the
// include, compiles to the same program, and keeps the headers it shares with the host.
#include <doctest/doctest.h>

#include <filesystem>

#include "npu/evaluate_on_simulator.hpp"
#include "npu/kernel_unit.hpp"
#include "npu/op_package.hpp"

namespace fs = std::filesystem;

namespace {

aopt::npu::op_package load(const fs::path& dir) {
  auto op = aopt::npu::load_op_package(dir);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_SUITE("kernel unit") {
  TEST_CASE("the kernel's own header is joined in; the host's headers stay included") {
    const aopt::npu::op_package op = load(fs::path(AOPT_TEST_DATA_DIR) / "ops/team_layout_add");
    const std::string joined = aopt::npu::kernel_with_own_headers(op);
    const std::string& header = op.other_files.at("op_kernel/team_layout_add_block.h");
    CHECK(joined != op.kernel_source);
    CHECK(joined.find("\n#include \"team_layout_add_block.h\"") == std::string::npos);
    CHECK(joined.find(header.substr(header.find("class"), 200)) != std::string::npos);
    // The consts header is the host's too: included, by the kernel and by the joined header.
    CHECK(count(joined, "team_layout_add_consts.h\"") == 2);
    CHECK(count(joined, "// aopt: op_kernel/team_layout_add_block.h joined from here") == 1);

    // The same program: the joined kernel evaluates as the kernel with its header does.
    const aopt::npu::eval_result verbatim = aopt::testing::evaluate_on_simulator(op);
    aopt::npu::op_package joined_op = op;
    joined_op.kernel_source = joined;
    const aopt::npu::eval_result as_one = aopt::testing::evaluate_on_simulator(joined_op);
    REQUIRE_MESSAGE(verbatim.ok(), verbatim.message);
    REQUIRE_MESSAGE(as_one.ok(), as_one.message);
    CHECK(as_one.latency_us == doctest::Approx(verbatim.latency_us));
  }

  TEST_CASE("a kernel without headers of its own is left as it is") {
    const aopt::npu::op_package op = load(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom");
    CHECK(aopt::npu::kernel_with_own_headers(op) == op.kernel_source);
  }
}
