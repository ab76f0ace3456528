// Stage I on operators as teams write them (issue 16): for a subset of the corpus, one campaign
// on the packages as shipped (EVOLVE-BLOCK marks) and one on the same packages with every mark
// stripped (template synthesis only), both Stage I only at the same budget. Prints, per variant,
// the geometric-mean speedup, the operators improved, and the share of device evaluations that
// were infeasible. Latencies are simulated, not measured.
//
//   bench_stage1_synthesis [--budget N] [--ops a,b,c | --all] [--slots N] [--jobs N]
//                          [--work DIR] [--probe-baselines] [--config FILE] [--set K=V]...
//                          [CORPUS_DIR]
//
// The configuration is loaded as `aopt run` loads it (the bench's defaults, budget 40 and two
// device slots, come after --config and before --set; the flags win); the strategy is always
// stage1. The device of --probe-baselines comes from it through the same factory.
// --probe-baselines only probes the shipped tiling of every chosen operator and prints the
// verdict: each should be feasible (a rejected baseline is a false rejection of the judge).
// The default subset takes the first two operators of each level folder (sorted by name); --all
// takes every operator of level1..3, the levels interleaved (L1, L2, L3, L1, ...) so that a run
// stopped early still covers every level. The whole corpus is CPU heavy (budget x operators x 2
// simulator runs): each operator runs as its own pair of campaigns (marked and stripped, side by
// side) and its line is printed as soon as both end, so a partial run reports what finished.
// --jobs N runs N operators (2N campaigns) at once, each on its own devices and databases; the
// per-operator results do not depend on it (each campaign is deterministic), only the wall time
// and the order of the lines do. --work DIR keeps the databases: run again with the same DIR (and
// the same build), the bench resumes every campaign it started there (bench_work_dir.hpp).
// Besides the infeasible share of device evaluations, it prints the share of proposals the tiling
// probe rejected before the device (issue 16, "<kind> (tiling_probe)" rejections).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "agent/episode/tiling_feasibility.hpp"
#include "bench_config.hpp"
#include "bench_work_dir.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "npu/tiling_prober.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/device_factory.hpp"
#include "storage/store.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The tiling program without EVOLVE-BLOCK marks and without `// tunable:` annotations.
std::string strip_marks(const std::string& source) {
  static const std::regex marker(R"(^\s*// EVOLVE-BLOCK-(START|END).*$)");
  static const std::regex annotation(R"(\s*//\s*tunable:.*$)");
  std::stringstream in(source);
  std::string out, line;
  while (std::getline(in, line)) {
    if (std::regex_match(line, marker)) continue;
    out += std::regex_replace(line, annotation, "") + "\n";
  }
  return out;
}

// The first `per_level` operators of each level (sorted by name), levels interleaved.
std::vector<fs::path> level_subset(const fs::path& root, size_t per_level) {
  std::vector<std::vector<fs::path>> levels;
  for (const char* level : {"level1", "level2", "level3"}) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root / level)) {
      if (fs::exists(e.path() / "op.json")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    if (dirs.size() > per_level) dirs.resize(per_level);
    levels.push_back(std::move(dirs));
  }
  size_t longest = 0;
  for (const auto& dirs : levels) longest = std::max(longest, dirs.size());
  std::vector<fs::path> out;
  for (size_t i = 0; i < longest; ++i) {
    for (const auto& dirs : levels) {
      if (i < dirs.size()) out.push_back(dirs[i]);
    }
  }
  return out;
}

struct variant_result {
  double gm_speedup = 1;
  uint32_t improved = 0;
  uint32_t operators = 0;
  uint32_t failed_baselines = 0;
  uint32_t evaluations = 0;  // device evaluations (policy failures excluded)
  uint32_t infeasible = 0;
  uint32_t probe_rejected = 0;  // proposals the tiling probe kept from the device
  double wall_seconds = 0;
  double log_sum = 0;
  std::vector<std::string> lines;

  void add(const variant_result& o) {
    improved += o.improved;
    operators += o.operators;
    failed_baselines += o.failed_baselines;
    evaluations += o.evaluations;
    infeasible += o.infeasible;
    probe_rejected += o.probe_rejected;
    wall_seconds += o.wall_seconds;
    log_sum += o.log_sum;
    gm_speedup = operators ? std::exp(log_sum / operators) : 1.0;
  }
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

variant_result run_variant(const std::string& name, const std::vector<fs::path>& ops,
                           const fs::path& work, const aopt::config::aopt_config& cfg) {
  auto db =
      aopt::storage::store::open(work / ("db-" + name + "-" + ops.front().filename().string()));
  if (!db.ok()) {
    fmt::print(stderr, "bench: {}\n", db.error().to_string());
    std::exit(1);
  }
  aopt::runtime::campaign_request request;
  request.campaign = "bench-" + name;
  request.operators = ops;
  request.config = cfg;
  auto outcome = aopt::runtime::run_campaign(request, **db, nullptr,
                                             std::make_shared<std::atomic<bool>>(false));
  if (!outcome.ok()) {
    fmt::print(stderr, "bench: {}\n", outcome.error().to_string());
    std::exit(1);
  }
  variant_result r;
  r.wall_seconds = outcome->wall_seconds;
  for (const aopt::agent::episode_state& s : outcome->episodes) {
    uint32_t failures = 0;
    for (const auto& [kind, n] : s.failures) {
      if (kind != "policy_failure") failures += n;
    }
    const uint32_t policy_failures =
        s.failures.count("policy_failure") ? s.failures.at("policy_failure") : 0;
    uint32_t probed = 0;
    for (const auto& [reason, n] : s.rejected) {
      if (ends_with(reason, "(tiling_probe)")) probed += n;
    }
    r.evaluations += s.candidates - policy_failures;
    r.infeasible += failures;
    r.probe_rejected += probed;
    if (s.phase == aopt::agent::episode_phase::failed || s.baseline_us <= 0) {
      r.failed_baselines++;
      r.lines.push_back(fmt::format("  {:<8} L{} {:<36} baseline failed: {}", name, s.level,
                                    s.op_name, s.failure));
      continue;
    }
    const double speedup = s.best_us > 0 ? s.baseline_us / s.best_us : 1.0;
    r.operators++;
    if (speedup > 1.0) r.improved++;
    r.log_sum += std::log(speedup);
    r.lines.push_back(fmt::format(
        "  {:<8} L{} {:<36} {:>7.3f}x  {:>3} evaluations, {:>3} infeasible, {:>3} probe-rejected{}",
        name, s.level, s.op_name, speedup, s.candidates - policy_failures, failures, probed,
        s.repaired_from.empty() ? "" : " (baseline repaired)"));
  }
  r.gm_speedup = r.operators ? std::exp(r.log_sum / r.operators) : 1.0;
  return r;
}

// Probes and judges the shipped tiling of each operator on the configured device (which must be
// able to probe: the simulator); true when every one is feasible.
bool check_baselines(const std::vector<fs::path>& ops, const fs::path& work,
                     aopt::config::aopt_config cfg) {
  auto hw =
      aopt::npu::find_hardware_profile(cfg.device.profile, aopt::config::hardware_dir(cfg.device));
  if (!hw.ok()) {
    fmt::print(stderr, "bench: device.profile: {}\n", hw.error().to_string());
    return false;
  }
  fs::create_directories(work / "probe");
  cfg.device.work_dir = (work / "probe").string();
  auto made = aopt::runtime::make_device(cfg);
  if (!made.ok()) {
    fmt::print(stderr, "bench: {}\n", made.error().to_string());
    return false;
  }
  auto device = std::dynamic_pointer_cast<aopt::npu::tiling_prober>(*made);
  if (!device) {
    fmt::print(stderr, "bench: device.kind = {} cannot probe a tiling alone\n",
               aopt::config::to_string(cfg.device.kind));
    return false;
  }
  uint32_t rejected = 0;
  double seconds = 0;
  for (const fs::path& dir : ops) {
    auto op = aopt::npu::load_op_package(dir);
    if (!op.ok()) {
      fmt::print("  {:<36} cannot load: {}\n", dir.filename().string(), op.error().to_string());
      ++rejected;
      continue;
    }
    const aopt::npu::tiling_probe_result probe = device->probe_tiling(*op, op->host_source);
    seconds += probe.seconds;
    const aopt::agent::feasibility_verdict v = aopt::agent::judge_tiling(
        probe, aopt::agent::facts_of(*op, op->kernel_source, hw->ub_bytes));
    if (!v.feasible()) ++rejected;
    fmt::print("  {:<36} {} {}\n", op->spec.name, v.feasible() ? "feasible" : v.kind, v.message);
    std::fflush(stdout);
  }
  fmt::print("{} of {} shipped tilings rejected; {:.1f} s of probing\n", rejected, ops.size(),
             seconds);
  std::error_code ec;
  fs::remove_all(work / "probe", ec);
  return rejected == 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Stage I on the corpus as shipped against the same packages with marks stripped"};
  std::string corpus = (fs::path(AOPT_SOURCE_DIR) / "corpus").string();
  uint32_t budget = 40;
  uint32_t slots = 2;
  uint32_t jobs = 1;
  std::vector<std::string> names;
  bool all = false;
  bool probe_baselines = false;
  std::string work_given;
  aopt::runtime::config_options config_options;
  app.add_option("corpus", corpus, "Corpus folder")->capture_default_str();
  CLI::Option* budget_given = aopt::bench::add_budget_option(app, "--budget", budget);
  CLI::Option* slots_given =
      app.add_option("--slots", slots, "Device slots of each campaign (device.slots)")
          ->check(CLI::Range(1u, 64u))
          ->capture_default_str();
  app.add_option("--jobs", jobs, "Operators run at once (two campaigns each)")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  app.add_option("--ops", names, "Operators by name, comma-separated")->delimiter(',');
  app.add_flag("--all", all, "Every operator of level1..3, the levels interleaved");
  app.add_option("--work", work_given,
                 "Keep the databases here; a later run with the same folder resumes");
  app.add_flag("--probe-baselines", probe_baselines,
               "Only probe and judge the shipped tiling of every chosen operator");
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);

  const std::string budget_key = fmt::format("campaign.budget={}", budget);
  const std::string slots_key = fmt::format("device.slots={}", slots);
  std::vector<std::string> flags =
      aopt::bench::given_flags({{budget_given, budget_key}, {slots_given, slots_key}});
  flags.push_back("campaign.strategy=stage1");
  auto cfg = aopt::bench::load_bench_config(config_options, {budget_key, slots_key}, flags);
  if (!cfg.ok()) {
    fmt::print(stderr, "bench: {}\n", cfg.error().to_string());
    return 2;
  }
  const fs::path root(corpus);
  std::vector<fs::path> subset;
  if (names.empty()) {
    subset = level_subset(root, all ? SIZE_MAX : 2);
  } else {
    for (const std::string& n : names) {
      for (const char* level : {"level1", "level2", "level3", "experts"}) {
        if (fs::exists(root / level / n / "op.json")) subset.push_back(root / level / n);
      }
    }
  }
  auto work_dir = aopt::bench::bench_work_dir::open(
      work_given, "aopt-bench-stage1",
      {root.string(), (fs::path(AOPT_SOURCE_DIR) / "npu" / "sim").string()});
  if (!work_dir.ok()) {
    fmt::print(stderr, "bench: {}\n", work_dir.error().to_string());
    return 2;
  }
  const fs::path& work = work_dir->path();
  if (probe_baselines) return check_baselines(subset, work, *cfg) ? 0 : 1;
  if (work_dir->resumed()) {
    fmt::print("resuming in {}: finished campaigns are reused\n", work.string());
  }
  fs::create_directories(work / "stripped");
  std::vector<fs::path> stripped;
  for (const fs::path& op : subset) {
    const fs::path copy = work / "stripped" / op.filename();
    fs::remove_all(copy);
    fs::copy(op, copy, fs::copy_options::recursive);
    auto package = aopt::npu::load_op_package(op);
    if (!package.ok()) {
      fmt::print(stderr, "bench: {}: {}\n", op.string(), package.error().to_string());
      return 1;
    }
    const fs::path host = copy / package->spec.files.host;
    const std::string text = strip_marks(read(host));
    std::ofstream(host, std::ios::trunc) << text;
    stripped.push_back(copy);
  }
  fmt::print("stage I only, budget {}, {} operators, {} latencies\n", cfg->campaign.budget,
             subset.size(),
             cfg->device.kind == aopt::config::device_kind::sim ? "simulated" : "measured");
  std::fflush(stdout);
  variant_result marked;
  variant_result synth;
  std::mutex mutex;  // guards marked, synth, done and stdout
  size_t done = 0;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < subset.size(); i = next++) {
      // The two variants of one operator side by side (separate databases, one device each).
      variant_result m;
      std::thread other([&] { m = run_variant("marked", {subset[i]}, work, *cfg); });
      variant_result s = run_variant("stripped", {stripped[i]}, work, *cfg);
      other.join();
      std::lock_guard<std::mutex> lock(mutex);
      for (const variant_result* r : {&m, &s}) {
        for (const std::string& line : r->lines) fmt::print("{}\n", line);
      }
      marked.add(m);
      synth.add(s);
      fmt::print("  [{}/{} operators done]\n", ++done, subset.size());
      std::fflush(stdout);
    }
  };
  std::vector<std::thread> workers;
  for (uint32_t j = 0; j < std::min<size_t>(jobs, subset.size()); ++j) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();
  fmt::print("\n{:<10} {:>10} {:>10} {:>12} {:>12} {:>15} {:>10}\n", "variant", "GM speedup",
             "improved", "evaluations", "infeasible", "probe-rejected", "wall s");
  for (const auto& [name, r] : {std::pair{"marked", marked}, std::pair{"stripped", synth}}) {
    const uint32_t proposed = r.evaluations + r.probe_rejected;
    fmt::print("{:<10} {:>9.3f}x {:>5}/{:<4} {:>12} {:>11.1f}% {:>14.1f}% {:>10.0f}\n", name,
               r.gm_speedup, r.improved, r.operators, r.evaluations,
               r.evaluations ? 100.0 * r.infeasible / r.evaluations : 0.0,
               proposed ? 100.0 * r.probe_rejected / proposed : 0.0, r.wall_seconds);
  }
  return 0;
}
