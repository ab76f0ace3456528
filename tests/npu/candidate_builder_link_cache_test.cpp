// The link cache of the candidate builder (issue 33): an executable is linked once per set of
// objects; a candidate whose units compile to the objects of an earlier one (a comment, a
// cached unit) fetches that executable instead of linking again, and a real change relinks.
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "npu/op_package.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/device/compile_cache.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using aopt::npu::build_outcome;

namespace {

struct builder_fixture {
  aopt::testing::temp_dir dir;
  aopt::npu::compile_cache cache{dir.path() / "objcache"};
  aopt::npu::candidate_builder builder{aopt::npu::default_sim_toolchain(), cache};
  aopt::npu::op_package op = load();
  int builds = 0;

  static aopt::npu::op_package load() {
    auto op = aopt::npu::load_op_package(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "add_tiled");
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    return std::move(op).value();
  }

  build_outcome build(const std::string& tiling, const std::string& kernel, bool cold = false) {
    const fs::path scratch = dir.path() / ("build" + std::to_string(builds++));
    fs::create_directories(scratch);
    aopt::npu::build_limits limits;
    limits.cold = cold;
    build_outcome out = builder.build(op, tiling, kernel, scratch, limits);
    REQUIRE_MESSAGE(out.result == build_outcome::kind::ok, out.message);
    const auto perms = fs::status(out.executable).permissions();
    CHECK((perms & fs::perms::owner_exec) != fs::perms::none);
    return out;
  }
};

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("a candidate whose objects were linked before fetches the executable") {
    builder_fixture f;
    const build_outcome first = f.build(f.op.host_source, f.op.kernel_source);
    CHECK(first.links_cached == 0);

    // A comment recompiles the kernel unit to the same object: nothing to link.
    const build_outcome comment =
        f.build(f.op.host_source, f.op.kernel_source + "\n// a Stage II comment\n");
    CHECK(comment.units_compiled == 1);
    CHECK(comment.links_cached == 1);
    CHECK(fs::file_size(comment.executable) == fs::file_size(first.executable));

    // So does a comment in the tiling program.
    const build_outcome tiling_comment =
        f.build(f.op.host_source + "\n// a Stage I comment\n", f.op.kernel_source);
    CHECK(tiling_comment.units_compiled == 1);
    CHECK(tiling_comment.links_cached == 1);

    // A kernel that compiles to another object links anew.
    const build_outcome changed =
        f.build(f.op.host_source,
                f.op.kernel_source + "\n__attribute__((used)) static int aopt_link_cache_test_marker() { return 7; }\n");
    CHECK(changed.units_compiled == 1);
    CHECK(changed.links_cached == 0);

    // A cold build reads no cache, the linked executables included.
    const build_outcome cold = f.build(f.op.host_source, f.op.kernel_source, /*cold=*/true);
    CHECK(cold.links_cached == 0);
  }
}
