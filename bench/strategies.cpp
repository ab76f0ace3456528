// The five strategies of docs/design.md §9 on the same operators at the same budget with the
// offline (heuristic) policies (issue 18): alternating, stage1, stage2, best_of_n and evolve.
// Builds the experience bank from corpus/experts first (`aopt bank build`, a real process), then
// runs each operator once per strategy, each run its own one-operator campaign in one shared
// database, --parallel runs at a time (2 by default). Prints every run as it ends, then per
// strategy: the geometric-mean speedup, fast_p for p in {1.0, 1.2, 1.4, 2.0}, the GM per level, the
// share of the budget spent (evaluations / (budget x operators)) and how many episodes stopped
// early. Latencies are simulated, not measured.
//
//   bench_strategies [--budget N] [--ops a,b,c] [--limit N] [--parallel N] [--aopt PATH]
//                    [--work DIR] [--strategies a,b]
//                    [--config FILE] [--set K=V]... [CORPUS_DIR]
//
// --strategies runs only those (the last line, alternating over the best other, needs alternating
// and one more). --work DIR keeps the database: run again with the same DIR (and the same build),
// the bench reuses the bank and resumes every run it started there instead of evaluating it again
// (bench_work_dir.hpp).
//
// The configuration is loaded as `aopt run` loads it (the bench's defaults, budget 40 and one
// device slot per run, come after --config and before --set; --budget wins) and `aopt bank build`
// gets the same --config and --set; each run's strategy is the bench's.
// The default takes every operator of level1..3, the levels interleaved (L1, L2, L3, L1, ...) so
// that a run stopped early (--limit, or interrupted) still covers every level; the summary then
// covers the operators every strategy finished. CPU heavy: budget x operators x 5 simulator runs.
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
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "base/subprocess.hpp"
#include "bench_config.hpp"
#include "bench_work_dir.hpp"
#include "config/aopt_config.hpp"
#include "npu/protocol/op_spec.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kAllStrategies = {"alternating", "stage1", "stage2", "best_of_n",
                                                 "evolve"};
const std::vector<double> kFastP = {1.0, 1.2, 1.4, 2.0};

// Every operator of level1..3 under `root`, the levels interleaved.
std::vector<fs::path> interleaved_levels(const fs::path& root) {
  std::vector<std::vector<fs::path>> levels;
  for (const char* level : {"level1", "level2", "level3"}) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root / level)) {
      if (fs::exists(e.path() / "op.json")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    levels.push_back(std::move(dirs));
  }
  std::vector<fs::path> out;
  for (size_t i = 0; out.size() < levels[0].size() + levels[1].size() + levels[2].size(); ++i) {
    for (const auto& dirs : levels) {
      if (i < dirs.size()) out.push_back(dirs[i]);
    }
  }
  return out;
}

struct run_result {
  bool ok = false;
  std::string op;
  int level = 1;
  double speedup = 1;
  uint32_t spent = 0;
  std::string early_stop;
};

run_result run_one(aopt::storage::store& db, const std::string& strategy, const fs::path& op,
                   const aopt::config::aopt_config& cfg) {
  run_result r;
  r.op = op.filename().string();
  aopt::runtime::campaign_request request;
  request.campaign = "bench-" + strategy + "-" + r.op;
  request.operators = {op};
  request.config = cfg;
  auto outcome =
      aopt::runtime::run_campaign(request, db, nullptr, std::make_shared<std::atomic<bool>>(false));
  if (!outcome.ok() || outcome->episodes.size() != 1) {
    fmt::print(stderr, "bench: {} {}: {}\n", strategy, r.op,
               outcome.ok() ? "no episode" : outcome.error().to_string());
    return r;
  }
  const aopt::agent::episode_state& s = outcome->episodes.front();
  r.level = s.level;
  if (s.phase == aopt::agent::episode_phase::failed || s.baseline_us <= 0) return r;
  r.ok = true;
  r.speedup = s.best_us > 0 ? s.baseline_us / s.best_us : 1.0;
  r.spent = s.candidates;
  if (auto it = s.notes.find("early_stop"); it != s.notes.end()) r.early_stop = it->second;
  return r;
}

// Builds the experience bank from `root`/experts into the database at `db_dir` with the aopt
// binary (a real process); 0 on success, else the exit code for main.
int build_bank(const std::string& aopt, const fs::path& root, const fs::path& db_dir,
               const aopt::runtime::config_options& config_options) {
  fmt::print("building the experience bank from {} (heuristic rewind)\n",
             (root / "experts").string());
  std::fflush(stdout);
  aopt::subprocess_options bank;
  bank.argv = {aopt, "bank", "build", (root / "experts").string(), "--db", db_dir.string()};
  if (!config_options.file.empty())
    bank.argv.insert(bank.argv.end(), {"--config", config_options.file});
  for (const std::string& key : config_options.overrides)
    bank.argv.insert(bank.argv.end(), {"--set", key});
  auto built = aopt::run_subprocess(bank);
  if (!built.ok() || !built->exited || built->exit_code != 0) {
    fmt::print(stderr, "bench: aopt bank build failed: {}\n",
               built.ok() ? built->stderr_text : built.error().to_string());
    return 1;
  }
  return 0;
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 1.0;
  double sum = 0;
  for (double x : v) sum += std::log(x);
  return std::exp(sum / static_cast<double>(v.size()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The five strategies on the same operators at the same budget"};
  std::string corpus = (fs::path(AOPT_SOURCE_DIR) / "corpus").string();
  std::string aopt = AOPT_BINARY;
  uint32_t budget = 40;
  size_t limit = SIZE_MAX;
  uint32_t parallel = 2;
  std::string work_given;
  std::vector<std::string> names;
  std::vector<std::string> strategies = kAllStrategies;
  aopt::runtime::config_options config_options;
  app.add_option("corpus", corpus, "Corpus folder")->capture_default_str();
  CLI::Option* budget_given = aopt::bench::add_budget_option(app, "--budget", budget);
  app.add_option("--ops", names, "Operators by name, comma-separated")->delimiter(',');
  app.add_option("--limit", limit, "At most this many operators");
  app.add_option("--parallel", parallel, "Runs at a time, each with one device slot")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--strategies", strategies, "Strategies by name, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(kAllStrategies))
      ->capture_default_str();
  app.add_option("--aopt", aopt, "The aopt binary that builds the bank")->capture_default_str();
  app.add_option("--work", work_given,
                 "Keep the database here; a later run with the same folder resumes");
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);

  const std::string budget_key = fmt::format("campaign.budget={}", budget);
  std::map<std::string, aopt::config::aopt_config> configs;  // by strategy
  for (const std::string& strategy : strategies) {
    std::vector<std::string> flags = aopt::bench::given_flags({{budget_given, budget_key}});
    flags.push_back("campaign.strategy=" + strategy);
    auto cfg =
        aopt::bench::load_bench_config(config_options, {budget_key, "device.slots=1"}, flags);
    if (!cfg.ok()) {
      fmt::print(stderr, "bench: {}\n", cfg.error().to_string());
      return 2;
    }
    configs.emplace(strategy, std::move(*cfg));
  }
  budget = configs.begin()->second.campaign.budget;
  const fs::path root(corpus);
  std::vector<fs::path> ops;
  for (const fs::path& op : interleaved_levels(root)) {
    if (names.empty() || std::find(names.begin(), names.end(), op.filename()) != names.end())
      ops.push_back(op);
  }
  if (ops.size() > limit) ops.resize(limit);
  if (ops.empty()) {
    fmt::print(stderr, "bench: no operator selected under {}\n", root.string());
    return 2;
  }

  auto work = aopt::bench::bench_work_dir::open(
      work_given, "aopt-bench-strategies",
      {aopt, root.string(), (fs::path(AOPT_SOURCE_DIR) / "npu" / "sim").string()});
  if (!work.ok()) {
    fmt::print(stderr, "bench: {}\n", work.error().to_string());
    return 2;
  }
  const fs::path db_dir = work->path() / "db";
  const fs::path bank_built = work->path() / "bank.built";
  if (fs::exists(bank_built)) {
    fmt::print("resuming in {}: the bank and the finished runs are reused\n",
               work->path().string());
  } else if (int failed = build_bank(aopt, root, db_dir, config_options); failed != 0) {
    return failed;
  } else {
    std::ofstream(bank_built) << "ok\n";
  }
  auto db = aopt::storage::store::open(db_dir);
  if (!db.ok()) {
    fmt::print(stderr, "bench: {}\n", db.error().to_string());
    return 1;
  }

  fmt::print("{} strategies, budget {}, {} operators, offline policies, simulated latencies\n",
             strategies.size(), budget, ops.size());
  std::fflush(stdout);
  // results[strategy][op index]
  std::map<std::string, std::vector<run_result>> results;
  for (const std::string& s : strategies) results[s].resize(ops.size());
  // The table over the first `done` operators (printed after each, so a stopped run reports).
  auto print_summary = [&](size_t done) {
    fmt::print("\n{:<12} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6}\n", "strategy",
               "GM", "fast1.0", "fast1.2", "fast1.4", "fast2.0", "GM L1", "GM L2", "GM L3",
               "budget", "early");
    std::map<std::string, double> gm;
    for (const std::string& s : strategies) {
      std::vector<double> all;
      std::map<int, std::vector<double>> by_level;
      uint64_t spent = 0;
      uint32_t early = 0;
      for (size_t i = 0; i < done; ++i) {
        // Only operators whose baseline every strategy measured, so the rows compare alike.
        bool everywhere = true;
        for (const std::string& t : strategies) everywhere = everywhere && results[t][i].ok;
        if (!everywhere) continue;
        const run_result& r = results[s][i];
        all.push_back(r.speedup);
        by_level[r.level].push_back(r.speedup);
        spent += r.spent;
        if (!r.early_stop.empty()) ++early;
      }
      gm[s] = geomean(all);
      std::string fast;
      for (double p : kFastP) {
        const auto n = std::count_if(all.begin(), all.end(), [p](double x) { return x > p; });
        fast += fmt::format(" {:>7.1f}%", all.empty() ? 0.0 : 100.0 * n / all.size());
      }
      std::string levels;
      for (int l : {1, 2, 3}) levels += fmt::format(" {:>7.3f}x", geomean(by_level[l]));
      fmt::print("{:<12} {:>7.3f}x{}{} {:>7.1f}% {:>6}\n", s, gm[s], fast, levels,
                 all.empty() ? 0.0 : 100.0 * spent / (static_cast<double>(budget) * all.size()),
                 early);
    }
    double others = 0;
    for (const std::string& s : strategies) {
      if (s != "alternating") others = std::max(others, gm[s]);
    }
    if (gm.count("alternating") == 0 || others == 0) return;
    fmt::print("\nalternating over the best other strategy: {:+.1f} % GM\n",
               100.0 * (gm["alternating"] / others - 1.0));
  };
  // Every (operator, strategy) run from one queue, operator by operator, `parallel` at a time:
  // a run that ends early (stage2 stopping) frees its thread for the next operator's runs. An
  // operator's summary is printed once its runs and those of every operator before it ended.
  std::vector<std::pair<size_t, size_t>> runs;  // (operator, strategy)
  for (size_t i = 0; i < ops.size(); ++i) {
    for (size_t k = 0; k < strategies.size(); ++k) runs.emplace_back(i, k);
  }
  std::atomic<size_t> next{0};
  std::mutex print;
  std::vector<size_t> ended(ops.size(), 0);
  size_t reported = 0;
  auto worker = [&] {
    for (size_t j = next++; j < runs.size(); j = next++) {
      const auto [i, k] = runs[j];
      run_result r = run_one(**db, strategies[k], ops[i], configs.at(strategies[k]));
      std::lock_guard lock(print);
      fmt::print("  {:<12} {:<32} {}\n", strategies[k], r.op,
                 r.ok ? fmt::format("{:>8.3f}x {:>3}/{} evaluations{}", r.speedup, r.spent, budget,
                                    r.early_stop.empty() ? "" : "  early stop")
                      : std::string("baseline failed"));
      results[strategies[k]][i] = std::move(r);
      ++ended[i];
      while (reported < ops.size() && ended[reported] == strategies.size()) {
        ++reported;
        fmt::print("  [{}/{} operators done]\n", reported, ops.size());
        print_summary(reported);
      }
      std::fflush(stdout);
    }
  };
  std::vector<std::thread> helpers;
  for (uint32_t t = 1; t < parallel; ++t) helpers.emplace_back(worker);
  worker();
  for (std::thread& t : helpers) t.join();

  return 0;
}
