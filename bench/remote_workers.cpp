// Evaluations per minute of one campaign evaluated by 1, 2 and 4 `aopt worker` processes of one
// slot each (issue 19), and the coordinator's CPU time per evaluation. The coordinator is a
// pure one (device.slots = 0, `aopt run --workers-listen 127.0.0.1:0`), so every evaluation
// crosses loopback TCP through CAF's io module and the coordinator's CPU is the pool's, the
// actors' and RocksDB's, not the device's. Each run uses a fresh database (no cache hits).
//
// The clock starts when the last worker has joined (the campaign waits for slots until then)
// and stops when the coordinator exits. On a machine with C cores the ratio cannot pass about
// C: each simulated evaluation is CPU-bound.
//
//   bench_remote_workers [budget] [operator dirs...] [--config FILE] [--set K=V]...
//
// --config and --set go to the coordinator and to every worker (one configuration, so one device
// profile); the coordinator's own flags (budget, device.slots = 0, ...) come after them and win.
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_config.hpp"
#include "support/line_process.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using aopt::testing::line_process;
using stream = line_process::stream;

namespace {

struct run_numbers {
  double wall_s = 0;
  uint64_t evaluations = 0;  // device evaluations of every kind
  double coordinator_cpu_s = 0;
};

// "--config FILE" and every "--set K=V", as arguments of an aopt command.
std::vector<std::string> config_args(const aopt::runtime::config_options& config) {
  std::vector<std::string> args;
  if (!config.file.empty()) args.insert(args.end(), {"--config", config.file});
  for (const std::string& key : config.overrides) args.insert(args.end(), {"--set", key});
  return args;
}

run_numbers run_once(int workers, const std::string& budget, const std::vector<std::string>& ops,
                     const aopt::runtime::config_options& config) {
  aopt::testing::temp_dir tmp;
  std::vector<std::string> args = {AOPT_BINARY, "run"};
  args.insert(args.end(), ops.begin(), ops.end());
  const std::vector<std::string> configured = config_args(config);
  args.insert(args.end(), configured.begin(), configured.end());
  for (const std::string& a :
       {std::string("--db"), (tmp.path() / "db").string(), std::string("--report"),
        (tmp.path() / "reports").string(), std::string("--budget"), budget, std::string("--rounds"),
        std::string("1"), std::string("--jobs"), std::string("4"), std::string("--seed"),
        std::string("5"), std::string("--json"), std::string("--workers-listen"),
        std::string("127.0.0.1:0"), std::string("--set"), std::string("device.slots=0")}) {
    args.push_back(a);
  }
  line_process coordinator(args);
  std::optional<std::string> listening = coordinator.wait_for(stream::err, "workers join on");
  if (!listening) {
    std::fprintf(stderr, "the coordinator did not start\n");
    std::exit(1);
  }
  const std::string port = listening->substr(listening->rfind(':') + 1);
  std::vector<std::unique_ptr<line_process>> procs;
  for (int i = 0; i < workers; ++i) {
    std::vector<std::string> worker = {AOPT_BINARY, "worker", "--slots",
                                       "1",         "--set",  "workers.rejoin_s=0"};
    worker.insert(worker.end(), {"--coordinator", "127.0.0.1:" + port});
    worker.insert(worker.end(), configured.begin(), configured.end());
    procs.push_back(std::make_unique<line_process>(worker));
    if (!procs.back()->wait_for(stream::out, "joined")) {
      std::fprintf(stderr, "a worker did not join\n");
      std::exit(1);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  // finish() reaps the child; its rusage is what it used itself (it starts no processes of its
  // own as a pure coordinator).
  rusage before{};
  getrusage(RUSAGE_CHILDREN, &before);
  const int code = coordinator.finish();
  rusage after{};
  getrusage(RUSAGE_CHILDREN, &after);
  run_numbers n;
  n.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (code != 0 || coordinator.lines(stream::out).empty()) {
    std::fprintf(stderr, "the campaign failed (exit %d)\n", code);
    std::exit(1);
  }
  const nlohmann::json pool =
      nlohmann::json::parse(coordinator.lines(stream::out).back()).at("pool");
  n.evaluations = pool.at("evaluated").get<uint64_t>() + pool.at("confirmations").get<uint64_t>() +
                  pool.at("validations").get<uint64_t>();
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  n.coordinator_cpu_s = seconds(after.ru_utime) + seconds(after.ru_stime) -
                        seconds(before.ru_utime) - seconds(before.ru_stime);
  for (auto& p : procs) p->finish();
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Evaluations per minute of one campaign on 1, 2 and 4 remote workers"};
  uint32_t budget_n = 4;
  std::vector<std::string> ops;
  aopt::runtime::config_options config;
  aopt::bench::add_budget_option(app, "budget", budget_n);
  app.add_option("op-dir", ops, "Operators (default: adds_custom, sigmoid_custom)");
  aopt::runtime::add_config_options(&app, config);
  CLI11_PARSE(app, argc, argv);
  const std::string budget = std::to_string(budget_n);
  if (ops.empty()) {
    for (const char* name : {"adds_custom", "sigmoid_custom"}) {
      ops.push_back(std::string(AOPT_SOURCE_DIR) + "/corpus/level1/" + name);
    }
  }
  std::printf("remote workers: %zu operators, budget %s, %u cores\n", ops.size(), budget.c_str(),
              std::thread::hardware_concurrency());
  std::printf("%8s %12s %10s %14s %10s %22s\n", "workers", "evaluations", "wall s", "evals/min",
              "ratio", "coordinator CPU ms/eval");
  double base = 0;
  for (int workers : {1, 2, 4}) {
    const run_numbers n = run_once(workers, budget, ops, config);
    const double per_minute = 60.0 * static_cast<double>(n.evaluations) / n.wall_s;
    if (base == 0) base = per_minute;
    std::printf("%8d %12llu %10.1f %14.1f %10.2f %22.1f\n", workers,
                static_cast<unsigned long long>(n.evaluations), n.wall_s, per_minute,
                per_minute / base, 1000 * n.coordinator_cpu_s / static_cast<double>(n.evaluations));
    std::fflush(stdout);
  }
  return 0;
}
