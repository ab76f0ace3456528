// The configuration a bench runs with, loaded as `aopt run` loads its own: the built-in
// defaults, then --config FILE, then the bench's own defaults (`bench_defaults`, e.g. a small
// budget), then every --set, then the bench's flags that were given (`flags`), which win. So a
// bench measures the device and limits of the configuration it is given, and --set can change
// any of its defaults.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli_config.hpp"

namespace aopt::bench {

inline result<config::aopt_config> load_bench_config(runtime::config_options options,
                                                     const std::vector<std::string>& bench_defaults,
                                                     const std::vector<std::string>& flags = {}) {
  options.overrides.insert(options.overrides.begin(), bench_defaults.begin(), bench_defaults.end());
  return runtime::load_config(options, flags);
}

// The bench's evaluations per operator (campaign.budget): `name` is "--budget", or "budget" for
// a positional argument. The returned option tells whether it was given (given_flags).
inline CLI::Option* add_budget_option(CLI::App& app, const std::string& name, uint32_t& budget) {
  return app.add_option(name, budget, "Evaluations per operator (campaign.budget)")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
}

// The "section.key=value" of each flag that was given on the command line, for `flags` above:
// a flag left at its default leaves the key to --set and the bench's default.
inline std::vector<std::string> given_flags(
    std::initializer_list<std::pair<const CLI::Option*, std::string>> flags) {
  std::vector<std::string> out;
  for (const auto& [option, key] : flags) {
    if (option->count() > 0) out.push_back(key);
  }
  return out;
}

}  // namespace aopt::bench
