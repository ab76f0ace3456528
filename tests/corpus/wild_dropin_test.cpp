// The wild set (../shared/wild, issue 34): real operators from public repositories, sources
// unchanged. Every package is evaluated as a user would drop it in; a package that evaluated ok
// and no longer does fails, so the drop-in rate can only rise. Skipped when the folder is absent.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "npu/dropin_survey.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

// The packages of the wild set that reach `ok` with their sources unchanged (bench_dropin prints
// the table). Each must stay ok, not merely their number: a check that started refusing one honest
// operator while another began to pass would keep the count (issue 30: no false positive on
// code we did not write). Add a package as its gap closes; never remove one.
constexpr const char* wild_ok_packages[] = {
    "ds_assign_score_withk",
    "ds_border_align",
    "ds_box_iou",
    "ds_dynamic_voxelization",
    "ds_fused_bias_leaky_relu_v2",
    "ds_group_points_grad",
    "ds_nms3d",
    "ds_nms3d_normal",
    "ds_roiaware_avgpool3d_grad",
    "ds_roiaware_maxpool3d_grad",
};

}  // namespace

TEST_SUITE("corpus") {
  TEST_CASE("the wild set drops in: every package that evaluated ok still does") {
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
    for (const char* package : wild_ok_packages) {
      CAPTURE(package);
      const auto row = std::find_if(rows.begin(), rows.end(), [&](const aopt::npu::dropin_row& r) {
        return r.package == package;
      });
      REQUIRE_MESSAGE(row != rows.end(), table);
      CHECK_MESSAGE(row->status == "ok", table);
    }
    CHECK_MESSAGE(aopt::npu::count_ok(rows) >= std::size(wild_ok_packages), table);
  }
}
