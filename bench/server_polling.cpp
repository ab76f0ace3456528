// The daemon under API load: the same campaign runs repeatedly on the simulator in an in-process
// `aopt serve` stack (store, event hub, campaign manager, router, Beast server on loopback),
// alone and while N concurrent clients poll GET /api/v1/campaigns/{id} (each on its own
// connection per request, one request every `interval` seconds, as dashboards and scripts do).
// Prints the polls' p50/p99/max latency and the evaluation throughput of both runs.
// Each run uses a fresh database, so no run gets evaluation-cache hits from another.
//
//   bench_server_polling [clients=100] [interval_s=1] [budget=6] [repeats=2] [op-dir...]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/aopt_config.hpp"
#include "server/api_router.hpp"
#include "server/http_client.hpp"
#include "server/http_server.hpp"
#include "storage/store.hpp"

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

// Wakes the bench when the campaign's final status is published.
class finish_watch final : public aopt::server::event_subscriber {
 public:
  void deliver(std::shared_ptr<const aopt::server::hub_event> e) override {
    if (e->type != "campaign_status") return;
    if (e->json.find("\"status\":\"done\"") == std::string::npos &&
        e->json.find("\"status\":\"failed\"") == std::string::npos) {
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    cv_.notify_all();
  }
  void close() override {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return done_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
};

struct run_result {
  double wall_s = 0;
  double self_cpu_s = 0;  // this process: daemon stack and polling clients, not the candidates
  uint64_t evaluations = 0;
  std::vector<double> latencies_ms;
  uint64_t failed_polls = 0;
};

double self_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

run_result run(const fs::path& db_dir, const std::vector<fs::path>& ops,
               const aopt::config::aopt_config& cfg, int clients, double interval_s) {
  aopt::storage::store_options so;
  so.sync = false;
  auto db = aopt::storage::store::open(db_dir, so);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.error().to_string().c_str());
    std::exit(1);
  }
  auto hub = std::make_shared<aopt::server::event_hub>();
  aopt::server::campaign_manager campaigns(**db, hub, cfg.device.slots);
  aopt::server::api_context ctx;
  ctx.db = db->get();
  ctx.campaigns = &campaigns;
  ctx.hub = hub.get();
  aopt::server::api_router router(std::move(ctx));
  aopt::server::http_server http(router, *hub, {});
  auto port = http.start({"127.0.0.1", 0});
  if (!port.ok()) std::exit(1);
  const aopt::server::server_url url{"127.0.0.1", std::to_string(*port), ""};

  auto watch = std::make_shared<finish_watch>();
  hub->subscribe(watch, 0);
  const auto start = clock_type::now();
  const double cpu_start = self_cpu_seconds();
  auto id = campaigns.create("bench", ops, cfg);
  if (!id.ok()) {
    std::fprintf(stderr, "%s\n", id.error().to_string().c_str());
    std::exit(1);
  }
  std::atomic<bool> stop{false};
  std::mutex results_mutex;
  run_result r;
  std::vector<std::thread> pollers;
  for (int i = 0; i < clients; ++i) {
    pollers.emplace_back([&, i] {
      std::vector<double> mine;
      uint64_t failed = 0;
      // Spread the clients over the interval instead of firing them in lockstep.
      auto next = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                          std::chrono::duration<double>(interval_s * i / clients));
      while (!stop.load()) {
        std::this_thread::sleep_until(next);
        next += std::chrono::duration_cast<clock_type::duration>(
            std::chrono::duration<double>(interval_s));
        const auto t0 = clock_type::now();
        auto res = aopt::server::http_call(url, "GET", "/api/v1/campaigns/bench", "", "");
        const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
        if (!res.ok() || res->status != 200) {
          failed++;
          continue;
        }
        mine.push_back(ms);
      }
      std::lock_guard<std::mutex> lock(results_mutex);
      r.latencies_ms.insert(r.latencies_ms.end(), mine.begin(), mine.end());
      r.failed_polls += failed;
    });
  }
  watch->wait();
  r.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
  stop = true;
  for (std::thread& t : pollers) t.join();
  r.self_cpu_s = self_cpu_seconds() - cpu_start;
  uint64_t evaluations = 0;
  for (const auto& [status, n] : hub->counters().evaluations_by_status) evaluations += n;
  r.evaluations = evaluations;
  http.stop();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int clients = argc > 1 ? std::stoi(argv[1]) : 100;
  const double interval_s = argc > 2 ? std::stod(argv[2]) : 1.0;
  const int budget = argc > 3 ? std::stoi(argv[3]) : 6;
  const int repeats = argc > 4 ? std::max(1, std::stoi(argv[4])) : 2;
  std::vector<fs::path> ops;
  for (int i = 5; i < argc; ++i) ops.push_back(fs::absolute(argv[i]));
  if (ops.empty()) {
    ops = {fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom",
           fs::path(AOPT_SOURCE_DIR) / "corpus/level1/relu_custom"};
  }
  auto cfg = aopt::config::load_config(
      "", {"campaign.budget=" + std::to_string(budget), "campaign.rounds=2", "campaign.jobs=2"});
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s\n", cfg.error().to_string().c_str());
    return 1;
  }
  const fs::path scratch =
      fs::temp_directory_path() / ("aopt-bench-polling-" + std::to_string(::getpid()));
  fs::remove_all(scratch);
  // The simulator's compile cache is shared by every run, so a first run (not measured) warms
  // it; the measured runs then alternate, alone and polled, so drift in the machine's load
  // falls on both.
  run(scratch / "warmup", ops, *cfg, 0, interval_s);
  std::vector<run_result> alone, polled;
  for (int i = 0; i < repeats; ++i) {
    alone.push_back(run(scratch / ("alone" + std::to_string(i)), ops, *cfg, 0, interval_s));
    polled.push_back(run(scratch / ("polled" + std::to_string(i)), ops, *cfg, clients, interval_s));
  }
  fs::remove_all(scratch);

  const auto throughput = [](const std::vector<run_result>& runs) {
    double evaluations = 0, seconds = 0;
    for (const run_result& r : runs) {
      evaluations += static_cast<double>(r.evaluations);
      seconds += r.wall_s;
    }
    return evaluations / seconds * 60;
  };
  std::vector<double> latencies;
  uint64_t failed = 0;
  for (const run_result& r : polled) {
    latencies.insert(latencies.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    failed += r.failed_polls;
  }
  std::printf("operators %zu, budget %d, device slots %u, %u CPUs, %d measured runs each\n",
              ops.size(), budget, cfg->device.slots, std::thread::hardware_concurrency(), repeats);
  for (int i = 0; i < repeats; ++i) {
    std::printf("run %d: alone %llu evaluations in %.1f s; polled %llu evaluations in %.1f s\n", i,
                static_cast<unsigned long long>(alone[i].evaluations), alone[i].wall_s,
                static_cast<unsigned long long>(polled[i].evaluations), polled[i].wall_s);
  }
  const double tp_alone = throughput(alone);
  const double tp_polled = throughput(polled);
  std::printf("alone:  %.2f evaluations/min\n", tp_alone);
  std::printf("polled: %.2f evaluations/min with %d clients polling every %.2f s\n", tp_polled,
              clients, interval_s);
  std::printf("polls: %zu ok, %llu failed; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              latencies.size(), static_cast<unsigned long long>(failed), percentile(latencies, 0.5),
              percentile(latencies, 0.99), percentile(latencies, 1.0));
  // The CPU the polling costs (server and the in-process clients together, so an upper bound
  // for the server), as a share of one core over the polled runs' wall time.
  double cpu_alone = 0, cpu_polled = 0, wall_polled = 0;
  for (int i = 0; i < repeats; ++i) {
    cpu_alone += alone[i].self_cpu_s / alone[i].wall_s;
    cpu_polled += polled[i].self_cpu_s / polled[i].wall_s;
    wall_polled += polled[i].wall_s;
  }
  std::printf(
      "aopt process CPU (excluding candidate processes): alone %.3f cores, polled %.3f "
      "cores; polling costs %.3f cores = %.3f ms CPU per poll (server + client)\n",
      cpu_alone / repeats, cpu_polled / repeats, (cpu_polled - cpu_alone) / repeats,
      (cpu_polled - cpu_alone) / repeats * wall_polled * 1000 /
          static_cast<double>(std::max<size_t>(1, latencies.size())));
  std::printf("throughput polled/alone: %.3f (%+.1f%%)\n", tp_polled / tp_alone,
              100 * (tp_polled / tp_alone - 1));
  return 0;
}
