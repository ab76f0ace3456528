// The options every command that reads configuration shares: --config FILE and repeated
// --set section.key=value.
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

}  // namespace aopt::runtime
