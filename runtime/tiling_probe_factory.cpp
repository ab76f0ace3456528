#include "runtime/tiling_probe_factory.hpp"

#include <utility>

#include "npu/hardware_profile.hpp"
#include "npu/tiling_prober.hpp"
#include "runtime/device_factory.hpp"

namespace aopt::runtime {

tiling_probe_setup make_tiling_probe(const config::aopt_config& config,
                                     const std::shared_ptr<npu::device>& device,
                                     std::vector<std::string> redact) {
  if (!config.stage1.probe_tilings) return {{}, "off (stage1.probe_tilings = false)"};
  result<sim::hw_profile> hw =
      npu::find_hardware_profile(config.device.profile, config::hardware_dir(config.device));
  if (!hw.ok()) return {{}, "none: device.profile: " + hw.error().message()};
  if (auto prober = std::dynamic_pointer_cast<npu::tiling_prober>(device)) {
    return {agent::make_probe_screen(std::move(prober), hw->ub_bytes), "simulator device"};
  }
  // The hardware devices run no tiling function alone; the simulator's prober builds the same
  // host code against the shim. The same [device] keys (profile, work folder, limits) make it.
  config::aopt_config simulator = config;
  simulator.device.kind = config::device_kind::sim;
  result<std::shared_ptr<npu::device>> made = make_device(simulator, std::move(redact));
  if (!made.ok()) return {{}, "none: " + made.error().message()};
  auto prober = std::dynamic_pointer_cast<npu::tiling_prober>(*made);
  if (!prober) return {{}, "none: the simulator device cannot probe"};
  return {agent::make_probe_screen(std::move(prober), hw->ub_bytes),
          std::string("simulator device built to probe (device.kind = ") +
              config::to_string(config.device.kind) + ")"};
}

}  // namespace aopt::runtime
