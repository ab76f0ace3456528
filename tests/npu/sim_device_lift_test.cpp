// Tilings that differ only in their tunable values share one build (tiling_constant_lift.hpp):
// real compiles and candidate processes, the lifted device against one that builds every tiling
// as written, on corpus/level1/add_custom.
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

struct lift_device {
  aopt::testing::temp_dir work;
  aopt::npu::sim_device device;

  explicit lift_device(bool lift, bool screen = true)
      : device(profile(), options(work.path(), lift, screen)) {}

  static aopt::sim::hw_profile profile() {
    auto p = aopt::npu::find_hardware_profile("ascend910b4",
                                              fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE_MESSAGE(p.ok(), p.error().to_string());
    return *p;
  }
  static aopt::npu::sim_device_options options(const fs::path& dir, bool lift, bool screen) {
    aopt::npu::sim_device_options o;
    o.work_dir = dir;
    o.lift_tiling_constants = lift;
    o.static_screen = screen;
    return o;
  }
  // Objects and executables in the device's cache.
  size_t cached_entries() const {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(work.path() / "objcache"))
      n += e.is_regular_file();
    return n;
  }
};

aopt::npu::op_package lift_test_add() {
  auto op = aopt::npu::load_op_package(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

std::string with_replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("tilings that differ only in a tunable value share one build and keep their results") {
    const aopt::npu::op_package op = lift_test_add();
    lift_device lifted(true);
    lift_device plain(false);
    size_t lifted_entries = 0;
    size_t plain_entries = 0;
    for (const char* cores : {"8", "3"}) {
      const std::string tiling = with_replaced(op.host_source, "BLOCK_DIM = 8;",
                                               std::string("BLOCK_DIM = ") + cores + ";");
      const auto a = lifted.device.evaluate(op, tiling, op.kernel_source, {});
      const auto b = plain.device.evaluate(op, tiling, op.kernel_source, {});
      REQUIRE_MESSAGE(a.ok(), a.message);
      REQUIRE_MESSAGE(b.ok(), b.message);
      CHECK(a.latency_us == b.latency_us);
      if (std::string(cores) == "8") {
        lifted_entries = lifted.cached_entries();
        plain_entries = plain.cached_entries();
      } else {
        CHECK(a.latency_us != doctest::Approx(233.937).epsilon(1e-6));  // another tiling ran
        // The second tiling compiled and linked nothing new when lifted; as written it did.
        CHECK(lifted.cached_entries() == lifted_entries);
        CHECK(plain.cached_entries() > plain_entries);
      }
    }
  }

  TEST_CASE("a lifted constant read by an earlier static initializer has its value") {
    const aopt::npu::op_package op = lift_test_add();
    std::string tiling =
        with_replaced(op.host_source, "namespace optiling {\n// EVOLVE-BLOCK-START",
                      "namespace optiling {\nuint32_t EarlyTile();\n"
                      "static const uint32_t EARLY_TILE = EarlyTile();\n"
                      "// EVOLVE-BLOCK-START");
    tiling = with_replaced(tiling, "// EVOLVE-BLOCK-END\n",
                           "// EVOLVE-BLOCK-END\nuint32_t EarlyTile() { return TILE_LENGTH; }\n");
    tiling =
        with_replaced(tiling, "std::min(TILE_LENGTH, maxTile)", "std::min(EARLY_TILE, maxTile)");
    {
      // The screen refuses code that runs before the kernel's entry, lifted or not.
      lift_device lifted(true);
      lift_device plain(false);
      const auto a = lifted.device.evaluate(op, tiling, op.kernel_source, {});
      const auto b = plain.device.evaluate(op, tiling, op.kernel_source, {});
      CHECK(a.error_kind == "forbidden");
      CHECK(a.message == b.message);
    }
    // Without the screen (the checker holds alone), the initializer runs and reads the value.
    lift_device lifted(true, false);
    lift_device plain(false, false);
    const auto a = lifted.device.evaluate(op, tiling, op.kernel_source, {});
    const auto b = plain.device.evaluate(op, tiling, op.kernel_source, {});
    REQUIRE_MESSAGE(a.ok(), a.message);
    REQUIRE_MESSAGE(b.ok(), b.message);
    CHECK(a.latency_us == b.latency_us);
    const auto probe_a = lifted.device.probe_tiling(op, tiling);
    const auto probe_b = plain.device.probe_tiling(op, tiling);
    REQUIRE(probe_a.result == aopt::npu::tiling_probe_result::kind::ran);
    REQUIRE(probe_b.result == aopt::npu::tiling_probe_result::kind::ran);
    CHECK(probe_a.block_dim == probe_b.block_dim);
    CHECK(probe_a.tiling_data == probe_b.tiling_data);
  }

  TEST_CASE("a constant needed as a constant expression is built as written") {
    const aopt::npu::op_package op = lift_test_add();
    const std::string tiling =
        with_replaced(op.host_source, "// EVOLVE-BLOCK-END\n",
                      "// EVOLVE-BLOCK-END\nstatic_assert(TILE_LENGTH % 256 == 0, \"pow2\");\n");
    lift_device lifted(true);
    lift_device plain(false);
    for (const char* tile : {"2048", "1024"}) {
      const std::string t =
          with_replaced(tiling, "TILE_LENGTH = 2048;", std::string("TILE_LENGTH = ") + tile + ";");
      const auto a = lifted.device.evaluate(op, t, op.kernel_source, {});
      const auto b = plain.device.evaluate(op, t, op.kernel_source, {});
      REQUIRE_MESSAGE(a.ok(), a.message);
      REQUIRE_MESSAGE(b.ok(), b.message);
      CHECK(a.latency_us == b.latency_us);
    }
    // A program that fails as written fails with its own error, not the rewrite's.
    const std::string broken = with_replaced(tiling, "TILE_LENGTH = 2048;", "TILE_LENGTH = 2000;");
    const auto a = lifted.device.evaluate(op, broken, op.kernel_source, {});
    const auto b = plain.device.evaluate(op, broken, op.kernel_source, {});
    CHECK(a.status == aopt::npu::eval_status::compile_error);
    CHECK(a.message == b.message);
    CHECK(a.message.find("pow2") != std::string::npos);
  }

  TEST_CASE("a kernel that does not compile leaves its tiling program lifted") {
    // The lifting changes the tiling program's text only: a kernel unit that fails to compile
    // fails the same way under the written program, so its failure is reported once and the
    // tiling's other values still share the first build.
    const aopt::npu::op_package op = lift_test_add();
    const std::string broken_kernel =
        with_replaced(op.kernel_source, "class KernelAdd {",
                      "int aopt_broken = undeclared_name;\nclass KernelAdd {");
    lift_device lifted(true);
    lift_device plain(false);
    const auto first = lifted.device.evaluate(op, op.host_source, op.kernel_source, {});
    REQUIRE_MESSAGE(first.ok(), first.message);
    const size_t entries = lifted.cached_entries();
    const auto a = lifted.device.evaluate(op, op.host_source, broken_kernel, {});
    const auto b = plain.device.evaluate(op, op.host_source, broken_kernel, {});
    CHECK(a.status == aopt::npu::eval_status::compile_error);
    CHECK(a.error_kind == "compile");
    CHECK(a.message == b.message);
    CHECK(a.message.find("undeclared_name") != std::string::npos);
    // Another value of a tunable: served by the lifted build, nothing compiled or linked anew.
    const std::string three = with_replaced(op.host_source, "BLOCK_DIM = 8;", "BLOCK_DIM = 3;");
    const auto c = lifted.device.evaluate(op, three, op.kernel_source, {});
    REQUIRE_MESSAGE(c.ok(), c.message);
    CHECK(lifted.cached_entries() == entries);
  }
}
