// How much headroom the corpus leaves: for every operator package under a corpus folder, the
// simulated latency of its own tiling and kernel, the roofline bound on the same profile and the
// achieved fraction (bound / latency), then the geometric means and the distribution of the
// fractions per level. Latencies are simulated, not measured. The device comes from the loaded
// configuration through the same factory as `aopt run`'s.
//
//   bench_corpus_roofline [CORPUS_DIR] [--profile NAME] [--jobs N] [--config FILE] [--set K=V]...
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "app/cli_config.hpp"
#include "npu/op_package.hpp"
#include "runtime/device_factory.hpp"

namespace {

namespace fs = std::filesystem;

struct row {
  aopt::npu::op_package op;
  aopt::npu::eval_result result;
};

std::vector<fs::path> find_packages(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().filename() == "op.json") {
      dirs.push_back(entry.path().parent_path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

// The value below which `q` of the sorted values lie (nearest rank).
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

std::string group_of(const aopt::npu::op_spec& spec) {
  return spec.kind == "expert" ? "experts" : fmt::format("level{}", spec.level);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Simulated latency against the roofline bound for every package of a corpus"};
  std::string root = (fs::path(AOPT_SOURCE_DIR) / "corpus").string();
  std::string profile_name;
  uint32_t jobs = 2;
  aopt::runtime::config_options config_options;
  app.add_option("corpus", root, "Corpus folder")->capture_default_str();
  app.add_option("--profile", profile_name, "Hardware profile (device.profile)");
  app.add_option("--jobs", jobs, "Evaluations run at once")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> flags;
  if (!profile_name.empty()) flags.push_back("device.profile=" + profile_name);
  auto config = aopt::runtime::load_config(config_options, flags);
  if (!config.ok()) {
    fmt::print(stderr, "{}\n", config.error().message());
    return 2;
  }
  auto device = aopt::runtime::make_device(*config);
  if (!device.ok()) {
    fmt::print(stderr, "{}\n", device.error().message());
    return 2;
  }

  std::vector<row> rows;
  for (const auto& dir : find_packages(root)) {
    auto op = aopt::npu::load_op_package(dir);
    if (!op.ok()) {
      fmt::print(stderr, "{}\n", op.error().message());
      return 2;
    }
    rows.push_back({std::move(op).value(), {}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
    return std::make_tuple(a.op.spec.kind != "baseline", a.op.spec.level, a.op.spec.name) <
           std::make_tuple(b.op.spec.kind != "baseline", b.op.spec.level, b.op.spec.name);
  });

  aopt::npu::eval_options options = aopt::runtime::make_eval_options(config->device);
  options.input_sets = 1;  // correctness is the corpus test's job; one set suffices for timing
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < rows.size(); i = next++) {
      const auto& op = rows[i].op;
      rows[i].result = (*device)->evaluate(op, op.host_source, op.kernel_source, options);
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < jobs; ++t) threads.emplace_back(worker);
  for (auto& thread : threads) thread.join();

  fmt::print("Corpus roofline on {} (simulated latency, microseconds)\n\n",
             (*device)->profile_id());
  fmt::print("| {:<38} | {:<7} | {:>5} | {:>11} | {:>9} | {:>9} | {:>9} | {:>8} |\n", "operator",
             "group", "cores", "latency_us", "bound_us", "memory_us", "vector_us", "achieved");
  fmt::print("|{:-<40}|{:-<9}|{:->7}|{:->13}|{:->11}|{:->11}|{:->11}|{:->10}|\n", "", "", "", "",
             "", "", "", "");
  std::map<std::string, std::vector<double>> fractions;
  std::map<std::string, std::vector<double>> latencies;
  size_t failed = 0;
  for (const auto& r : rows) {
    const auto& res = r.result;
    const std::string group = group_of(r.op.spec);
    if (!res.ok()) {
      ++failed;
      fmt::print("| {:<38} | {:<7} | {} {}\n", r.op.spec.name, group,
                 aopt::npu::to_string(res.status), res.message);
      continue;
    }
    fmt::print(
        "| {:<38} | {:<7} | {:>5} | {:>11.2f} | {:>9.2f} | {:>9.2f} | {:>9.2f} | {:>7.1f}% |\n",
        r.op.spec.name, group, res.profile.block_dim, res.latency_us, res.roof.bound_us,
        res.roof.memory_bound_us, res.roof.vector_bound_us, 100 * res.roof.achieved_fraction);
    fractions[group].push_back(res.roof.achieved_fraction);
    if (r.op.spec.kind != "expert")
      fractions["all baselines"].push_back(res.roof.achieved_fraction);
    latencies[group].push_back(res.latency_us);
  }

  fmt::print("\nAchieved roofline fraction per group (geometric mean; distribution)\n\n");
  fmt::print(
      "| {:<13} | {:>3} | {:>8} | {:>6} | {:>6} | {:>6} | {:>6} | {:>6} | {:>5} | {:>5} | {:>5} | "
      "{:>5} |\n",
      "group", "n", "geomean", "min", "p25", "median", "p75", "max", "<25%", "25-50", "50-75",
      ">=75");
  fmt::print(
      "|{:-<15}|{:->5}|{:->10}|{:->8}|{:->8}|{:->8}|{:->8}|{:->8}|{:->7}|{:->7}|{:->7}|{:->7}|\n",
      "", "", "", "", "", "", "", "", "", "", "", "");
  for (auto& [group, values] : fractions) {
    std::sort(values.begin(), values.end());
    int buckets[4] = {0, 0, 0, 0};
    for (double v : values) ++buckets[std::min(3, static_cast<int>(v * 4))];
    fmt::print(
        "| {:<13} | {:>3} | {:>7.1f}% | {:>5.1f}% | {:>5.1f}% | {:>5.1f}% | {:>5.1f}% | {:>5.1f}% "
        "| {:>5} | {:>5} | {:>5} | {:>5} |\n",
        group, values.size(), 100 * geometric_mean(values), 100 * values.front(),
        100 * quantile(values, 0.25), 100 * quantile(values, 0.5), 100 * quantile(values, 0.75),
        100 * values.back(), buckets[0], buckets[1], buckets[2], buckets[3]);
  }
  std::vector<double> all_latencies;
  for (const auto& [group, values] : latencies) {
    all_latencies.insert(all_latencies.end(), values.begin(), values.end());
  }
  fmt::print("\nGeometric mean latency over {} operators: {:.2f} us (simulated); {} failed\n",
             all_latencies.size(), geometric_mean(all_latencies), failed);
  return failed == 0 ? 0 : 1;
}
