// The options every command that reads configuration shares: --config FILE and repeated
// --set section.key=value; and the [device] shorthands of the commands that evaluate packages
// one at a time (`aopt eval`, `aopt corpus list`).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/status.hpp"
#include "config/aopt_config.hpp"

namespace aopt::runtime {

struct config_options {
  std::string file;
  std::vector<std::string> overrides;
};

void add_config_options(CLI::App* command, config_options& options);

// Defaults, then the file, then the --set overrides, then `extra` (flags of the command itself,
// as "section.key=value", which win).
result<config::aopt_config> load_config(const config_options& options,
                                        const std::vector<std::string>& extra = {});

// --profile NAME and --input-sets N, shorthands for device.profile and device.input_sets; unset
// ones leave the configuration's value.
struct device_flags {
  std::string profile;
  uint32_t input_sets = 0;
};

void add_device_flags(CLI::App* command, device_flags& flags);

// The flags as "device.key=value" overrides, for load_config's `extra`.
std::vector<std::string> device_overrides(const device_flags& flags);

// The exit status of a command whose configured device could not be made (make_device's
// error), after printing "<command>: <reason>" to stderr: 2 (bad input) when the configuration
// is at fault (invalid_argument: an unknown profile, an unwritable work_dir), else 3 (aopt could
// not set the device up).
int report_device_error(const std::string& command, const status& error);

}  // namespace aopt::runtime
