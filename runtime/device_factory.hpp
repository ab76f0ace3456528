// Builds the configured device and the evaluation options from the [device] config section.
#pragma once

#include <memory>

#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "npu/device.hpp"

namespace aopt::runtime {

result<std::shared_ptr<npu::device>> make_device(const config::device_config& config);
npu::eval_options make_eval_options(const config::device_config& config);

}  // namespace aopt::runtime
