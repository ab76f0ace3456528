// The drop-in bench (issue 34): every operator package of a folder (default ../shared/wild, the
// wild set: real operators with their sources unchanged) evaluated as a new user would drop it
// in, on the configured device: per package its status, the first line of the reason and the
// latency, then the drop-in rate.
//
//   bench_dropin [FOLDER] [--jobs N] [--include-dir DIR]... [--config FILE] [--set K=V]...
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>

#include "app/cli_config.hpp"
#include "npu/dropin_survey.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "runtime/device_factory.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  CLI::App app{"Drop-in rate: a folder of operator packages evaluated with their own sources"};
  std::string root = (fs::path(AOPT_SOURCE_DIR) / ".." / "shared" / "wild").lexically_normal();
  uint32_t jobs = 2;
  aopt::runtime::config_options config_options;
  app.add_option("folder", root, "Folder of operator packages")->capture_default_str();
  app.add_option("--jobs", jobs, "Evaluations run at once")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  std::vector<std::string> include_dirs;
  app.add_option("--include-dir", include_dirs,
                 "A folder of the packages' repository holding helper headers they include but do "
                 "not carry (aopt eval --include-dir; repeatable)")
      ->check(CLI::ExistingDirectory);
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);

  const auto dirs = aopt::npu::dropin_packages(root);
  if (dirs.empty()) {
    fmt::print(stderr, "{}: no operator packages (folders holding op.json)\n", root);
    return 2;
  }
  auto config = aopt::runtime::load_config(config_options, {});
  if (!config.ok()) {
    fmt::print(stderr, "{}\n", config.error().message());
    return 2;
  }
  auto device = aopt::runtime::make_device(*config);
  if (!device.ok()) {
    fmt::print(stderr, "{}\n", device.error().message());
    return 2;
  }
  const aopt::npu::eval_options options = aopt::runtime::make_eval_options(config->device);
  aopt::npu::package_load_options load;
  load.include_dirs.assign(include_dirs.begin(), include_dirs.end());
  const auto rows = aopt::npu::survey_packages(dirs, **device, options, jobs, load);
  fmt::print("Drop-in of {} on {} (latency simulated on the simulator){}\n\n{}", root,
             (*device)->profile_id(),
             include_dirs.empty()
                 ? ""
                 : ", include folders " + fmt::format("{}", fmt::join(include_dirs, ", ")),
             aopt::npu::dropin_table(rows));
  // The judge's costliest evaluation of the survey: what its limits are set against (issue 30).
  if (const auto* sim = dynamic_cast<const aopt::npu::sim_device*>(device->get())) {
    const aopt::npu::judge_cost peak = sim->peak_judge_cost();
    fmt::print("\nJudge peak: {:.3f} s CPU, {:.1f} MiB resident\n", peak.cpu_seconds,
               static_cast<double>(peak.max_rss_bytes) / (1 << 20));
  }
  return 0;
}
