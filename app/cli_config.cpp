#include "app/cli_config.hpp"

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

}  // namespace aopt::runtime
