// The tiling probe of a campaign's Stage I candidates (issue 16: feasibility before the device),
// made from the configuration and the campaign's device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/episode/tiling_feasibility.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "npu/device.hpp"

namespace aopt::runtime {

struct tiling_probe_setup {
  agent::tiling_screen screen;  // empty: nothing is probed
  // One line for the run's output and logs: "simulator device", "simulator device built to
  // probe (device.kind = cann)", "off (stage1.probe_tilings = false)", or "none: <why>".
  std::string description;
};

// stage1.probe_tilings = false: no screen. Otherwise a screen over the campaign's device when it
// is the simulator, and for "cann" and "cascade" over a simulator device of device.profile made
// only to probe (the tiling function is host code that builds against the simulator's shim with
// g++). When that cannot be made (the profile does not load, the work folder is unusable) there
// is no screen and `description` says why: the campaign goes on unprobed.
tiling_probe_setup make_tiling_probe(const config::aopt_config& config,
                                     const std::shared_ptr<npu::device>& device,
                                     std::vector<std::string> redact = {});

}  // namespace aopt::runtime
