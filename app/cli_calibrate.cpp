// `aopt calibrate --from <measurements.jsonl> [--profile NAME] [--out FILE]`: fits the
// simulator profile's "assumed" constants to hardware latencies recorded by `aopt run` under
// device.kind = "cascade" (cann.measurements_file), writes the fitted profile and reports the
// Spearman rank correlation of simulated and measured latency before and after
// (npu/profile_calibration.hpp has the model and its limits).
//
// Exit status: 0 fitted and written; 2 bad input (missing or malformed file, unknown profile,
// too few usable measurements); 3 the output cannot be written.
#include <fstream>

#include <fmt/format.h>

#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/exit_codes.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/measurement_log.hpp"
#include "npu/profile_calibration.hpp"

namespace aopt::runtime {

namespace {

namespace fs = std::filesystem;

constexpr int exit_write_failed = 3;

struct calibrate_args {
  std::string from;
  std::string profile;  // "" = device.profile
  std::string out;      // "" = <profile>-calibrated.toml in the current folder
  config_options config;
};

fs::path profile_file(const std::string& name_or_path, const fs::path& hardware_dir) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".toml";
  return is_path ? fs::path(name_or_path) : hardware_dir / (name_or_path + ".toml");
}

int run_calibrate(const calibrate_args& args) {
  auto fail = [](const std::string& message, int code) {
    fmt::print(stderr, "aopt calibrate: {}\n", message);
    return code;
  };
  auto cfg = load_config(args.config);
  if (!cfg.ok()) return fail(cfg.error().to_string(), exit_bad_input);
  const std::string name = args.profile.empty() ? cfg->device.profile : args.profile;
  const fs::path hw_dir = config::hardware_dir(cfg->device);
  auto profile = npu::find_hardware_profile(name, hw_dir);
  if (!profile.ok()) return fail(profile.error().to_string(), exit_bad_input);
  const fs::path file = profile_file(name, hw_dir);
  auto assumed = npu::assumed_constants(file);
  if (!assumed.ok()) return fail(assumed.error().to_string(), exit_bad_input);
  auto records = npu::read_measurements(args.from);
  if (!records.ok()) return fail(records.error().to_string(), exit_bad_input);

  std::vector<npu::measurement_record> usable;
  size_t other_profile = 0;
  size_t no_sim = 0;
  for (auto& r : *records) {
    if (!r.has_sim) {
      ++no_sim;
    } else if (r.sim_profile_id != "sim:" + profile->name) {
      ++other_profile;
    } else {
      usable.push_back(std::move(r));
    }
  }
  auto fit = npu::calibrate(*profile, *assumed, usable);
  if (!fit.ok()) return fail(args.from + ": " + fit.error().message(), exit_bad_input);

  const std::string new_name = profile->name + "-calibrated";
  const fs::path out = args.out.empty() ? fs::path(new_name + ".toml") : fs::path(args.out);
  auto text =
      npu::write_fitted_profile(file, *fit, new_name, fs::path(args.from).filename().string());
  if (!text.ok()) return fail(text.error().to_string(), exit_write_failed);
  {
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    o << *text;
    if (!o) return fail("cannot write " + out.string(), exit_write_failed);
  }

  fmt::print("profile      {} ({})\n", profile->name, file.string());
  fmt::print("measurements {} used of {} ({} without the simulator's side, {} of other profiles)\n",
             fit->used, records->size(), no_sim, other_profile);
  fmt::print("constant                         before        after   change\n");
  for (const auto& c : fit->fitted) {
    fmt::print("  {:<28} {:>10.4g}   {:>10.4g}   {:+6.1f} %\n", c.name, c.before, c.after,
               (c.after / c.before - 1) * 100);
  }
  for (const auto& u : fit->assumed_not_fitted) {
    fmt::print("  {:<28} assumed, not fitted: {}\n", u.name, u.reason);
  }
  for (const auto& n : fit->notes) fmt::print("note         {}\n", n);
  fmt::print("spearman     {:.3f} before, {:.3f} after (simulated vs measured latency)\n",
             fit->spearman_before, fit->spearman_after);
  fmt::print("wrote        {} (use it with --set device.profile={})\n", out.string(), out.string());
  return exit_ok;
}

}  // namespace

void add_calibrate_command(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<calibrate_args>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit the simulator profile's assumed constants to measured NPU latencies. Exit status: 0 "
      "ok, 2 bad input, 3 cannot write the profile.");
  cmd->add_option("--from", args->from,
                  "Measurements file (JSON Lines) written by `aopt run` under device.kind = "
                  "\"cascade\" with cann.measurements_file set")
      ->required();
  cmd->add_option("--profile", args->profile,
                  "Hardware profile to fit: a name in the hardware folder or a .toml file "
                  "(default: device.profile)");
  cmd->add_option("--out", args->out,
                  "Where to write the fitted profile (default: <profile>-calibrated.toml)");
  add_config_options(cmd, args->config);
  cmd->callback([args, &ctx] { ctx.exit_code = run_calibrate(*args); });
}

}  // namespace aopt::runtime
