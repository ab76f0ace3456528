// The AST screen's own state (npu/sim/device/ast_screen.cpp): what it builds once per process
// must not keep a failure of the machine. Its verdicts on code are tested in
// tests/adversarial/checker_ast_screen_test.cpp.
#include "npu/sim/device/ast_screen.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "npu/op_package.hpp"
#include "support/descriptor_exhaustion.hpp"
#include "support/temp_dir.hpp"

TEST_SUITE("npu") {
  TEST_CASE("a screen that could not precompile the shim for want of descriptors recovers") {
    auto op =
        aopt::npu::load_op_package(std::filesystem::path(AOPT_TEST_DATA_DIR) / "ops" / "add_tiled");
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    aopt::testing::temp_dir work;
    const aopt::npu::ast_screen screen(aopt::npu::default_sim_toolchain(), work.path());
    std::optional<aopt::npu::screen_finding> starved;
    {
      aopt::testing::descriptor_exhaustion limit(0);
      starved = screen.screen(*op, op->host_source, &op->kernel_source);
    }
    REQUIRE(starved.has_value());
    CHECK(starved->unjudged);
    // With descriptors again the shim's headers are built and the honest package passes.
    const auto again = screen.screen(*op, op->host_source, &op->kernel_source);
    CHECK_MESSAGE(!again.has_value(), (again ? again->message() : std::string()));
  }
}
