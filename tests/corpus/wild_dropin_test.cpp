// The wild set (../shared/wild, issue 34): real operators from public repositories, sources
// unchanged. Every package is evaluated as a user would drop it in; fewer `ok` than the floor
// fails, so the drop-in rate can only rise (the lead raises the floor as gaps close). Skipped
// when the folder is absent.
#include <doctest/doctest.h>

#include <filesystem>

#include "npu/dropin_survey.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

// The packages of the wild set that reach `ok` with their sources unchanged (assign_score_withk,
// border_align, box_iou, dynamic_voxelization, fused_bias_leaky_relu_v2, group_points_grad,
// nms3d, nms3d_normal, roiaware_avgpool3d_grad, roiaware_maxpool3d_grad; bench_dropin prints the
// table). Raise it as gaps close; never lower it.
constexpr size_t wild_ok_floor = 10;

}  // namespace

TEST_SUITE("corpus") {
  TEST_CASE("the wild set drops in: at least the floor of its packages evaluate ok") {
    const fs::path root = (fs::path(AOPT_SOURCE_DIR) / ".." / "shared" / "wild").lexically_normal();
    const auto dirs = aopt::npu::dropin_packages(root);
    if (dirs.empty()) {
      MESSAGE("skipped: no wild set at " << root.string());
      return;
    }
    auto profile = aopt::npu::find_hardware_profile("ascend910b4",
                                                    fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE_MESSAGE(profile.ok(), profile.error().message());
    aopt::testing::temp_dir work;
    aopt::npu::sim_device_options device_options;
    device_options.work_dir = work.path();
    device_options.cache_dir = aopt::testing::shared_object_cache();
    aopt::npu::sim_device device(*profile, device_options);
    const aopt::npu::eval_options options;
    const auto rows = aopt::npu::survey_packages(dirs, device, options, 2);
    const std::string table = aopt::npu::dropin_table(rows);
    MESSAGE(table);
    CHECK_MESSAGE(aopt::npu::count_ok(rows) >= wild_ok_floor, table);
  }
}
