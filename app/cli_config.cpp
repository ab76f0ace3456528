#include "app/cli_config.hpp"

#include <iostream>

namespace aopt::runtime {

void add_config_options(CLI::App* command, config_options& options) {
  command->add_option("--config", options.file, "configuration file (TOML), over config/aopt.toml");
  // One key a time, so that a positional argument after it is not taken for a second key.
  command
      ->add_option("--set", options.overrides, "override one key: section.key=value (repeatable)")
      ->allow_extra_args(false);
}

result<config::aopt_config> load_config(const config_options& options,
                                        const std::vector<std::string>& extra) {
  std::vector<std::string> all = options.overrides;
  all.insert(all.end(), extra.begin(), extra.end());
  return config::load_config(options.file, all);
}

void add_device_flags(CLI::App* command, device_flags& flags) {
  command->add_option("--profile", flags.profile,
                      "Hardware profile name (config/hardware/<NAME>.toml) or a .toml file "
                      "(device.profile)");
  command
      ->add_option("--input-sets", flags.input_sets,
                   "Seeded input sets checked for correctness, at least 3 (device.input_sets)")
      ->check(CLI::Range(3u, 1000u));
}

std::vector<std::string> device_overrides(const device_flags& flags) {
  std::vector<std::string> o;
  if (!flags.profile.empty()) o.push_back("device.profile=" + flags.profile);
  if (flags.input_sets != 0) o.push_back("device.input_sets=" + std::to_string(flags.input_sets));
  return o;
}

int report_device_error(const std::string& command, const status& error) {
  if (error.code() == status_code::invalid_argument) {
    std::cerr << command << ": " << error.message() << "\n";
    return 2;
  }
  std::cerr << command << ": " << error.to_string() << "\n";
  return 3;
}

}  // namespace aopt::runtime
