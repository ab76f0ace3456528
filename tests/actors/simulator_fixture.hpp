// What the actor tests that evaluate on the real simulator share: an ascend910b4 simulator
// device working below a temporary folder, and operator packages of the bundled corpus.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"

namespace aopt::testing {

inline std::shared_ptr<npu::sim_device> simulator_device(const std::filesystem::path& work_dir) {
  result<sim::hw_profile> hw = npu::find_hardware_profile(
      "ascend910b4", std::filesystem::path(AOPT_SOURCE_DIR) / "config/hardware");
  REQUIRE_MESSAGE(hw.ok(), hw.error().to_string());
  npu::sim_device_options options;
  options.work_dir = work_dir;
  options.cache_dir = testing::shared_object_cache();
  return std::make_shared<npu::sim_device>(*hw, options);
}

// `relative` names a package below corpus/, e.g. "level1/add_custom".
inline std::shared_ptr<const npu::op_package> corpus_package(const std::string& relative) {
  result<npu::op_package> op =
      npu::load_op_package(std::filesystem::path(AOPT_SOURCE_DIR) / "corpus" / relative);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::make_shared<const npu::op_package>(std::move(*op));
}

}  // namespace aopt::testing
