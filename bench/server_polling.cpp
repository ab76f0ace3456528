// The daemon under API load: the same campaign runs repeatedly on the simulator in an in-process
// `aopt serve` stack (store, event hub, campaign manager, router, Beast server on loopback; this
// process is the daemon), alone and while N clients poll GET /api/v1/campaigns/{id}, one request
// every `interval` seconds each, spread over the interval. By default the campaign covers four
// level-1 operators, all in flight on the default two device slots.
//
// The clients run in a child process (this program with --clients) on one thread, each on its
// own keep-alive connection as a dashboard's browser keeps it, so the daemon's CPU
// (/proc/self/stat, which leaves out the candidate processes) and the clients' (the child's
// rusage) are measured apart; the API threads' own CPU comes from their schedstat.
//
// Prints per pair of runs and as medians: evaluations/min alone and polled, polls, failed polls,
// latency p50/p99/max, and CPU per poll: the daemon's (polled minus alone, the same campaign
// doing the same work), its API threads' and the clients'; then the cores the polling takes,
// next to the cores the campaign uses. Each run uses a fresh database, so no run gets
// evaluation-cache hits from another.
//
//   bench_server_polling [clients=100] [interval_s=1] [budget=6] [pairs=5] [op-dir...]
//                        [--config FILE] [--set K=V]...
//   bench_server_polling --clients PORT CLIENTS INTERVAL_S TARGET     (the child, until SIGTERM)
//
// The configuration is loaded as `aopt run` loads it; the bench's defaults (budget 6, two rounds,
// every episode in flight) come after --config and before --set; a budget given wins.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <CLI/CLI.hpp>

#include "base/subprocess.hpp"
#include "bench_config.hpp"
#include "server/api_router.hpp"
#include "server/http_server.hpp"
#include "storage/store.hpp"

namespace fs = std::filesystem;
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using clock_type = std::chrono::steady_clock;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_server_polling: %s\n", why.c_str());
  std::exit(1);
}

// ---- the clients (child process) ----

struct poll_stats {
  std::vector<double> latencies_ms;
  uint64_t failed = 0;
};

// One client: a keep-alive connection, (re)opened when a poll finds it closed or failed.
class poller {
 public:
  poller(net::io_context& ioc, const net::ip::tcp::endpoint& server, const std::string& target,
         clock_type::duration interval, clock_type::time_point first, poll_stats& stats)
      : stream_(ioc),
        timer_(ioc),
        server_(server),
        request_(http::verb::get, target, 11),
        interval_(interval),
        next_(first),
        stats_(stats) {
    request_.set(http::field::host, "127.0.0.1");
    request_.set(http::field::user_agent, "bench_server_polling");
  }

  void wait() {
    // One request at a time: a poll slower than the interval delays the next ones.
    next_ = std::max(next_, clock_type::now());
    timer_.expires_at(next_);
    next_ += interval_;
    timer_.async_wait([this](beast::error_code ec) {
      if (!ec) poll();
    });
  }

 private:
  void poll() {
    sent_ = clock_type::now();
    stream_.expires_after(std::chrono::seconds(30));
    if (connected_) {
      send();
      return;
    }
    stream_.async_connect(server_, [this](beast::error_code ec) {
      if (ec) return fail();
      connected_ = true;
      send();
    });
  }

  void send() {
    http::async_write(stream_, request_, [this](beast::error_code ec, size_t) {
      if (ec) return fail();
      response_ = {};
      http::async_read(stream_, buffer_, response_,
                       [this](beast::error_code read_ec, size_t) { on_response(read_ec); });
    });
  }

  void on_response(beast::error_code ec) {
    if (ec || response_.result() != http::status::ok) return fail();
    stats_.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(clock_type::now() - sent_).count());
    if (!response_.keep_alive()) close();
    wait();
  }

  void fail() {
    stats_.failed++;
    close();
    wait();
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    stream_.close();
    buffer_.clear();
    connected_ = false;
  }

  beast::tcp_stream stream_;
  net::steady_timer timer_;
  net::ip::tcp::endpoint server_;
  http::request<http::empty_body> request_;
  http::response<http::string_body> response_;
  beast::flat_buffer buffer_;
  clock_type::duration interval_;
  clock_type::time_point next_;
  clock_type::time_point sent_;
  bool connected_ = false;
  poll_stats& stats_;
};

// Polls until SIGTERM, then prints "failed N" and one latency (ms) per line.
int run_clients(uint16_t port, int clients, double interval_s, const std::string& target) {
  // Ends with the bench too when it dies without stopping the clients.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  net::io_context ioc(1);
  net::signal_set stop(ioc, SIGTERM);
  stop.async_wait([&](beast::error_code, int) { ioc.stop(); });
  poll_stats stats;
  const net::ip::tcp::endpoint server(net::ip::make_address("127.0.0.1"), port);
  const auto interval =
      std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(interval_s));
  const auto start = clock_type::now();
  std::vector<std::unique_ptr<poller>> pollers;
  for (int i = 0; i < clients; ++i) {
    pollers.push_back(std::make_unique<poller>(ioc, server, target, interval,
                                               start + interval * i / clients, stats));
    pollers.back()->wait();
  }
  ioc.run();
  std::string out = "failed " + std::to_string(stats.failed) + "\n";
  char line[32];
  for (double ms : stats.latencies_ms) {
    std::snprintf(line, sizeof line, "%.4f\n", ms);
    out += line;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

// ---- the daemon (this process) ----

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

// utime + stime of this process, every thread that ever ran included, children excluded.
double process_cpu_seconds() {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name, which is in parentheses and may hold spaces: state is
  // field 3, utime 14, stime 15.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::vector<std::string> f((std::istream_iterator<std::string>(fields)),
                             std::istream_iterator<std::string>());
  if (f.size() < 13) die("cannot parse /proc/self/stat");
  return static_cast<double>(std::stoull(f[11]) + std::stoull(f[12])) /
         static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// CPU of the reaped children: the candidates, their compilers and the clients process.
double children_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// On-CPU time of the HTTP server's threads, in nanoseconds exact (schedstat), while they run.
double http_threads_cpu_seconds() {
  double total = 0;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name != aopt::server::http_thread_name) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    uint64_t ns = 0;
    schedstat >> ns;
    total += static_cast<double>(ns) / 1e9;
  }
  return total;
}

struct run_result {
  double wall_s = 0;
  uint64_t evaluations = 0;
  double daemon_cpu_s = 0;
  double http_cpu_s = 0;
  double clients_cpu_s = 0;
  double candidates_cpu_s = 0;
  poll_stats polls;
  double per_min() const { return static_cast<double>(evaluations) / wall_s * 60; }
  double campaign_cores() const { return (daemon_cpu_s + candidates_cpu_s) / wall_s; }
};

poll_stats parse_polls(const std::string& text) {
  poll_stats s;
  std::istringstream in(text);
  std::string word;
  if (!(in >> word >> s.failed) || word != "failed") die("clients printed: " + text.substr(0, 200));
  for (double ms; in >> ms;) s.latencies_ms.push_back(ms);
  return s;
}

run_result run(const fs::path& db_dir, const std::vector<fs::path>& ops,
               const aopt::config::aopt_config& cfg, int clients, double interval_s) {
  aopt::storage::store_options so;
  so.sync = false;
  auto db = aopt::storage::store::open(db_dir, so);
  if (!db.ok()) die(db.error().to_string());
  auto hub = std::make_shared<aopt::server::event_hub>();
  aopt::server::campaign_manager campaigns(**db, hub, cfg.device.slots);
  aopt::server::api_context ctx;
  ctx.db = db->get();
  ctx.campaigns = &campaigns;
  ctx.hub = hub.get();
  aopt::server::api_router router(std::move(ctx));
  aopt::server::http_server http(router, *hub, {});
  auto port = http.start({"127.0.0.1", 0});
  if (!port.ok()) die(port.error().to_string());

  auto watch = std::make_shared<finish_watch>();
  hub->subscribe(watch, 0);
  run_result r;
  const auto start = clock_type::now();
  const double cpu_start = process_cpu_seconds();
  const double children_start = children_cpu_seconds();
  auto id = campaigns.create("bench", ops, cfg);
  if (!id.ok()) die(id.error().to_string());
  std::optional<aopt::subprocess> client_process;
  if (clients > 0) {
    aopt::subprocess_options o;
    o.argv = {fs::read_symlink("/proc/self/exe").string(),
              "--clients",
              std::to_string(*port),
              std::to_string(clients),
              std::to_string(interval_s),
              "/api/v1/campaigns/" + *id};
    o.output_limit_bytes = size_t{1} << 30;
    auto started = aopt::subprocess::start(o);
    if (!started.ok()) die(started.error().to_string());
    client_process.emplace(std::move(*started));
  }
  watch->wait();
  r.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
  r.daemon_cpu_s = process_cpu_seconds() - cpu_start;
  r.http_cpu_s = http_threads_cpu_seconds();
  if (client_process) {
    ::kill(client_process->pid(), SIGTERM);
    aopt::subprocess_result out = client_process->wait();
    if (!out.succeeded() || out.stdout_truncated) {
      die("clients: " + out.describe() + ": " + out.stderr_text);
    }
    r.clients_cpu_s = out.cpu_seconds;
    r.polls = parse_polls(out.stdout_text);
  }
  r.candidates_cpu_s = children_cpu_seconds() - children_start - r.clients_cpu_s;
  for (const auto& [status, n] : hub->counters().evaluations_by_status) r.evaluations += n;
  http.stop();
  return r;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double median(const std::vector<double>& v) {
  return percentile(v, 0.5);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--clients") == 0) {
    return run_clients(static_cast<uint16_t>(std::stoi(argv[2])), std::stoi(argv[3]),
                       std::stod(argv[4]), argv[5]);
  }
  CLI::App app{"The daemon's campaign throughput under API polling"};
  int clients = 100;
  double interval_s = 1.0;
  uint32_t budget = 6;
  int pairs = 5;
  std::vector<std::string> op_dirs;
  aopt::runtime::config_options config_options;
  app.add_option("clients", clients, "Polling clients")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("interval_s", interval_s, "Seconds between two polls of one client")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI::Option* budget_given = aopt::bench::add_budget_option(app, "budget", budget);
  app.add_option("pairs", pairs, "Pairs of runs (alone, polled)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("op-dir", op_dirs, "Operators (default: four level-1 operators)");
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);
  std::vector<fs::path> ops;
  for (const std::string& dir : op_dirs) ops.push_back(fs::absolute(dir));
  if (ops.empty()) {
    for (const char* name : {"add_custom", "relu_custom", "adds_custom", "sigmoid_custom"})
      ops.push_back(fs::path(AOPT_SOURCE_DIR) / "corpus/level1" / name);
  }
  // Every operator's episode in flight, more episodes than device slots (as in a campaign over
  // a library), so that the device pool is the bottleneck the daemon must not slow down.
  const std::string budget_key = "campaign.budget=" + std::to_string(budget);
  auto cfg = aopt::bench::load_bench_config(
      config_options,
      {budget_key, "campaign.rounds=2", "campaign.jobs=" + std::to_string(ops.size())},
      aopt::bench::given_flags({{budget_given, budget_key}}));
  if (!cfg.ok()) die(cfg.error().to_string());
  const fs::path scratch =
      fs::temp_directory_path() / ("aopt-bench-polling-" + std::to_string(::getpid()));
  fs::remove_all(scratch);
  std::printf(
      "operators %zu, budget %u, device slots %u, %u CPUs, %d pairs of runs; %d clients in a "
      "separate process, keep-alive, each polling every %.2f s\n",
      ops.size(), cfg->campaign.budget, cfg->device.slots, std::thread::hardware_concurrency(),
      pairs, clients, interval_s);
  std::fflush(stdout);
  // The simulator's compile cache is shared by every run, so a first run (not measured) warms
  // it. Within a pair the order alternates (alone first, then polled first), so drift in the
  // machine's load falls on both sides.
  run(scratch / "warmup", ops, *cfg, 0, interval_s);
  std::vector<double> alone_tp, polled_tp, daemon_ms, http_ms, clients_ms, alone_cores;
  std::vector<double> latencies;
  double polled_wall_s = 0;
  uint64_t failed = 0;
  for (int i = 0; i < pairs; ++i) {
    const auto dir = [&](const char* what) { return scratch / (what + std::to_string(i)); };
    run_result alone, polled;
    if (i % 2 == 0) {
      alone = run(dir("alone"), ops, *cfg, 0, interval_s);
      polled = run(dir("polled"), ops, *cfg, clients, interval_s);
    } else {
      polled = run(dir("polled"), ops, *cfg, clients, interval_s);
      alone = run(dir("alone"), ops, *cfg, 0, interval_s);
    }
    const double polls = static_cast<double>(std::max<size_t>(1, polled.polls.latencies_ms.size()));
    alone_tp.push_back(alone.per_min());
    polled_tp.push_back(polled.per_min());
    daemon_ms.push_back((polled.daemon_cpu_s - alone.daemon_cpu_s) * 1000 / polls);
    http_ms.push_back(polled.http_cpu_s * 1000 / polls);
    clients_ms.push_back(polled.clients_cpu_s * 1000 / polls);
    alone_cores.push_back(alone.campaign_cores());
    polled_wall_s += polled.wall_s;
    latencies.insert(latencies.end(), polled.polls.latencies_ms.begin(),
                     polled.polls.latencies_ms.end());
    failed += polled.polls.failed;
    std::printf(
        "pair %d: alone %llu evaluations in %.1f s = %.2f/min; polled %llu in %.1f s = %.2f/min "
        "(%+.1f%%); %zu polls ok, %llu failed, p50 %.2f ms, p99 %.2f ms; daemon CPU alone %.2f s, "
        "polled %.2f s = %.3f ms/poll; API threads %.3f ms/poll; clients %.3f ms/poll; campaign "
        "(daemon + candidates) alone %.2f cores, polled %.2f cores\n",
        i, static_cast<unsigned long long>(alone.evaluations), alone.wall_s, alone.per_min(),
        static_cast<unsigned long long>(polled.evaluations), polled.wall_s, polled.per_min(),
        100 * (polled.per_min() / alone.per_min() - 1), polled.polls.latencies_ms.size(),
        static_cast<unsigned long long>(polled.polls.failed),
        percentile(polled.polls.latencies_ms, 0.5), percentile(polled.polls.latencies_ms, 0.99),
        alone.daemon_cpu_s, polled.daemon_cpu_s, daemon_ms.back(), http_ms.back(),
        clients_ms.back(), alone.campaign_cores(), polled.campaign_cores());
    std::fflush(stdout);
  }
  fs::remove_all(scratch);

  const double tp_alone = median(alone_tp);
  const double tp_polled = median(polled_tp);
  std::printf("evaluations/min (median of %d): alone %.2f, polled %.2f: %+.1f%%\n", pairs, tp_alone,
              tp_polled, 100 * (tp_polled / tp_alone - 1));
  // The two runs of a pair are back to back, so their ratio is free of the machine's drift
  // between pairs, which the medians of the rates above are not.
  std::vector<double> changes;
  for (size_t i = 0; i < alone_tp.size(); ++i) changes.push_back(polled_tp[i] / alone_tp[i] - 1);
  double mean_change = 0;
  for (double c : changes) mean_change += c / static_cast<double>(changes.size());
  std::printf(
      "throughput change polled vs alone, per pair: median %+.1f%%, mean %+.1f%%, "
      "range %+.1f%% .. %+.1f%%\n",
      100 * median(changes), 100 * mean_change, 100 * percentile(changes, 0.0),
      100 * percentile(changes, 1.0));
  std::printf("polls: %zu ok, %llu failed; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              latencies.size(), static_cast<unsigned long long>(failed), percentile(latencies, 0.5),
              percentile(latencies, 0.99), percentile(latencies, 1.0));
  std::printf(
      "CPU per poll (median of pairs): daemon %.3f ms (process, polled minus alone), of which "
      "API threads %.3f ms; clients %.3f ms (separate process)\n",
      median(daemon_ms), median(http_ms), median(clients_ms));
  // What the polling takes from a CPU-bound campaign, independent of other load on the machine
  // (which moves evaluations/min by tens of percent between runs on a shared machine).
  const double polls_per_s = static_cast<double>(latencies.size()) / polled_wall_s;
  const double polling_cores =
      polls_per_s * (std::max(0.0, median(daemon_ms)) + median(clients_ms)) / 1000;
  std::printf(
      "polling load: %.1f polls/s x (daemon + clients CPU per poll) = %.4f cores = %.2f%% of %u "
      "CPUs; the campaign alone used %.2f cores (median)\n",
      polls_per_s, polling_cores, 100 * polling_cores / std::thread::hardware_concurrency(),
      std::thread::hardware_concurrency(), median(alone_cores));
  return 0;
}
