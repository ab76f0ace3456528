// One evaluation of a package's own sources on the default simulator profile (ascend910b4),
// with its scratch in a temporary folder: what the package tests of this folder do.
#pragma once

#include <filesystem>

#include <doctest/doctest.h>

#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

namespace aopt::testing {

inline npu::eval_result evaluate_on_simulator(const npu::op_package& op) {
  auto profile = npu::find_hardware_profile(
      "ascend910b4", std::filesystem::path(AOPT_SOURCE_DIR) / "config/hardware");
  REQUIRE_MESSAGE(profile.ok(), profile.error().to_string());
  temp_dir work;
  npu::sim_device_options options;
  options.work_dir = work.path();
  options.cache_dir = shared_object_cache();
  npu::sim_device device(*profile, options);
  return device.evaluate(op, op.host_source, op.kernel_source, {});
}

}  // namespace aopt::testing
