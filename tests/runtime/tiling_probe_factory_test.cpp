// Which tiling probe a campaign's Stage I candidates pass (issue 16): the simulator device
// itself, a simulator device made only to probe for the hardware devices, none with the reason,
// or none because stage1.probe_tilings = false turns it off.
#include "runtime/tiling_probe_factory.hpp"

#include <doctest/doctest.h>

#include "runtime/device_factory.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;

namespace {

config::aopt_config loaded(const std::vector<std::string>& overrides) {
  auto cfg = config::load_config("", overrides);
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  return *cfg;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE(
      "stage1.probe_tilings = false leaves Stage I unprobed and on every device kind probes") {
    testing::temp_dir work;
    const std::string work_dir = "device.work_dir=\"" + work.path().string() + "\"";
    const config::aopt_config sim = loaded({work_dir});
    result<std::shared_ptr<npu::device>> device = runtime::make_device(sim);
    REQUIRE_MESSAGE(device.ok(), device.error().to_string());

    // Off: nothing is probed, whatever the device could do.
    const runtime::tiling_probe_setup off =
        runtime::make_tiling_probe(loaded({work_dir, "stage1.probe_tilings=false"}), *device);
    CHECK_FALSE(off.screen);
    CHECK(off.description == "off (stage1.probe_tilings = false)");

    // On: the simulator probes itself.
    const runtime::tiling_probe_setup on = runtime::make_tiling_probe(sim, *device);
    CHECK(static_cast<bool>(on.screen));
    CHECK(on.description == "simulator device");

    // A hardware device runs no tiling function alone: a simulator device is made to probe.
    const runtime::tiling_probe_setup cann =
        runtime::make_tiling_probe(loaded({work_dir, "device.kind=cann"}), nullptr);
    CHECK(static_cast<bool>(cann.screen));
    CHECK(cann.description == "simulator device built to probe (device.kind = cann)");

    // None can be made: no screen, and the reason.
    const runtime::tiling_probe_setup broken = runtime::make_tiling_probe(
        loaded({work_dir, "device.kind=cann", "device.profile=no_such_chip"}), nullptr);
    CHECK_FALSE(broken.screen);
    CHECK(broken.description.rfind("none: device.profile: ", 0) == 0);
  }
}
