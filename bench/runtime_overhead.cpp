// Actor-runtime overhead per evaluation and evaluations per minute with the simulator device.
//
// Run 1 (cold) evaluates every candidate on the device: it gives evaluations per minute and the
// idle time of the device slots per evaluation (policies, actors, RocksDB, scheduling).
// Run 2 repeats the same campaign under another id on the same database: its candidates are
// answered from the evaluation cache (the evaluator counts them), and so are the checks of its
// bests on the validation shapes, so its time per candidate is the runtime's own cost. Should it
// evaluate or validate any on the device, that number includes device time and the bench says
// so.
//
//   bench_runtime_overhead [ops-dir] [budget] [repeats] [--config FILE] [--set K=V]...
//
// The configuration is loaded as `aopt run` loads it; the bench's defaults (budget 8, four
// episodes at once, two device slots) come after --config and before --set.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct run_numbers {
  double wall_s = 0;
  uint64_t evaluated = 0;
  uint64_t validations = 0;  // final bests checked on validation shapes on the device
  uint64_t cache_hits = 0;
  double busy_s = 0;
  uint32_t slots = 0;
};

run_numbers run_once(const std::vector<fs::path>& ops, const aopt::config::aopt_config& cfg,
                     aopt::storage::store& db, const std::string& id) {
  aopt::runtime::campaign_request request;
  request.campaign = id;
  request.operators = ops;
  request.config = cfg;
  auto stop = std::make_shared<std::atomic<bool>>(false);
  auto outcome = aopt::runtime::run_campaign(request, db, nullptr, stop);
  if (!outcome.ok()) {
    std::fprintf(stderr, "campaign failed: %s\n", outcome.error().to_string().c_str());
    std::exit(1);
  }
  return {outcome->wall_seconds,    outcome->pool.evaluated,    outcome->pool.validations,
          outcome->pool.cache_hits, outcome->pool.busy_seconds, outcome->pool.slots};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Actor-runtime overhead per evaluation and evaluations per minute"};
  std::string dir = (fs::path(AOPT_SOURCE_DIR) / "corpus/level1").string();
  uint32_t budget = 8;
  int repeats = 3;
  aopt::runtime::config_options config_options;
  app.add_option("ops-dir", dir, "Operators (the first four)")->capture_default_str();
  CLI::Option* budget_given = aopt::bench::add_budget_option(app, "budget", budget);
  app.add_option("repeats", repeats, "Cold and warm runs, each on a fresh database")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);

  auto ops = aopt::runtime::discover_operators({dir});
  if (!ops.ok()) {
    std::fprintf(stderr, "%s\n", ops.error().to_string().c_str());
    return 1;
  }
  std::vector<fs::path> chosen(ops->begin(), ops->begin() + std::min<size_t>(4, ops->size()));
  const std::string budget_key = "campaign.budget=" + std::to_string(budget);
  auto cfg = aopt::bench::load_bench_config(config_options,
                                            {budget_key, "campaign.jobs=4", "device.slots=2"},
                                            aopt::bench::given_flags({{budget_given, budget_key}}));
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s\n", cfg.error().to_string().c_str());
    return 2;
  }

  std::vector<double> cold_idle_ms, cold_evals_per_min, warm_ms;
  for (int r = 0; r < repeats; ++r) {
    const fs::path db_dir =
        fs::temp_directory_path() /
        ("aopt-bench-runtime-" + std::to_string(::getpid()) + "-" + std::to_string(r));
    {
      auto db = aopt::storage::store::open(db_dir);
      if (!db.ok()) {
        std::fprintf(stderr, "%s\n", db.error().to_string().c_str());
        return 1;
      }
      const run_numbers cold = run_once(chosen, *cfg, **db, "cold");
      const run_numbers warm = run_once(chosen, *cfg, **db, "warm");
      const double evals = static_cast<double>(std::max<uint64_t>(1, cold.evaluated));
      cold_idle_ms.push_back(1000 * (cold.wall_s * cold.slots - cold.busy_s) / evals);
      cold_evals_per_min.push_back(60 * cold.evaluated / cold.wall_s);
      const uint64_t warm_candidates = warm.cache_hits + warm.evaluated;
      warm_ms.push_back(1000 * warm.wall_s /
                        static_cast<double>(std::max<uint64_t>(1, warm_candidates)));
      std::printf(
          "repeat %d: cold %llu evaluations (%llu cache hits) in %.2f s (device busy %.2f s over "
          "%u slots); warm %llu cache hits, %llu evaluations, %llu validations in %.3f s\n",
          r + 1, static_cast<unsigned long long>(cold.evaluated),
          static_cast<unsigned long long>(cold.cache_hits), cold.wall_s, cold.busy_s, cold.slots,
          static_cast<unsigned long long>(warm.cache_hits),
          static_cast<unsigned long long>(warm.evaluated),
          static_cast<unsigned long long>(warm.validations), warm.wall_s);
      if (warm.cache_hits == 0 || warm.evaluated > 0 || warm.validations > 0)
        std::printf(
            "  warning: the warm run was not answered from the cache alone; its time per "
            "candidate includes device time\n");
    }
    fs::remove_all(db_dir);
  }
  std::printf("operators %zu, budget %u, repeats %d (medians)\n", chosen.size(),
              cfg->campaign.budget, repeats);
  std::printf("evaluations per minute (%s device, %u slots): %.1f\n",
              aopt::config::to_string(cfg->device.kind), cfg->device.slots,
              median(cold_evals_per_min));
  std::printf("slot idle time per evaluation (runtime + policies + scheduling): %.1f ms\n",
              median(cold_idle_ms));
  std::printf("runtime cost per candidate answered from the cache: %.2f ms\n", median(warm_ms));
  return 0;
}
