// Stage I on operators as teams write them (issue 16): for a subset of the corpus, one campaign
// on the packages as shipped (EVOLVE-BLOCK marks) and one on the same packages with every mark
// stripped (template synthesis only), both Stage I only at the same budget. Prints, per variant,
// the geometric-mean speedup, the operators improved, and the share of device evaluations that
// were infeasible. Latencies are simulated, not measured.
//
//   bench_stage1_synthesis [--budget N] [--ops a,b,c] [--slots N] [CORPUS_DIR]
//
// The default subset takes the first two operators of each level folder (sorted by name); the
// whole corpus is CPU heavy (budget x operators x 2 simulator runs).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "config/aopt_config.hpp"
#include "npu/op_spec.hpp"
#include "runtime/campaign_runner.hpp"
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

std::vector<fs::path> default_subset(const fs::path& root, size_t per_level) {
  std::vector<fs::path> out;
  for (const char* level : {"level1", "level2", "level3"}) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root / level)) {
      if (fs::exists(e.path() / "op.json")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (size_t i = 0; i < std::min(per_level, dirs.size()); ++i) out.push_back(dirs[i]);
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
  double wall_seconds = 0;
};

variant_result run_variant(const std::string& name, const std::vector<fs::path>& ops,
                           const fs::path& work, uint32_t budget, uint32_t slots) {
  auto db = aopt::storage::store::open(work / ("db-" + name));
  if (!db.ok()) {
    fmt::print(stderr, "bench: {}\n", db.error().to_string());
    std::exit(1);
  }
  auto cfg = aopt::config::load_config(
      "", {fmt::format("campaign.budget={}", budget), "campaign.strategy=stage1",
           fmt::format("device.slots={}", slots)});
  if (!cfg.ok()) {
    fmt::print(stderr, "bench: {}\n", cfg.error().to_string());
    std::exit(1);
  }
  aopt::runtime::campaign_request request;
  request.campaign = "bench-" + name;
  request.operators = ops;
  request.config = *cfg;
  auto outcome = aopt::runtime::run_campaign(request, **db, nullptr,
                                             std::make_shared<std::atomic<bool>>(false));
  if (!outcome.ok()) {
    fmt::print(stderr, "bench: {}\n", outcome.error().to_string());
    std::exit(1);
  }
  variant_result r;
  r.wall_seconds = outcome->wall_seconds;
  double log_sum = 0;
  for (const aopt::agent::episode_state& s : outcome->episodes) {
    uint32_t failures = 0;
    for (const auto& [kind, n] : s.failures) {
      if (kind != "policy_failure") failures += n;
    }
    const uint32_t policy_failures =
        s.failures.count("policy_failure") ? s.failures.at("policy_failure") : 0;
    r.evaluations += s.candidates - policy_failures;
    r.infeasible += failures;
    if (s.phase == aopt::agent::episode_phase::failed || s.baseline_us <= 0) {
      r.failed_baselines++;
      fmt::print("  {:<8} {:<36} baseline failed: {}\n", name, s.op_name, s.failure);
      continue;
    }
    const double speedup = s.best_us > 0 ? s.baseline_us / s.best_us : 1.0;
    r.operators++;
    if (speedup > 1.0) r.improved++;
    log_sum += std::log(speedup);
    fmt::print("  {:<8} {:<36} {:>7.3f}x  {:>3} evaluations, {:>3} infeasible\n", name, s.op_name,
               speedup, s.candidates - policy_failures, failures);
  }
  r.gm_speedup = r.operators ? std::exp(log_sum / r.operators) : 1.0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root = fs::path(AOPT_SOURCE_DIR) / "corpus";
  uint32_t budget = 40;
  uint32_t slots = 2;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--budget" && i + 1 < argc) {
      budget = static_cast<uint32_t>(std::stoul(argv[++i]));
    } else if (arg == "--slots" && i + 1 < argc) {
      slots = static_cast<uint32_t>(std::stoul(argv[++i]));
    } else if (arg == "--ops" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string n; std::getline(list, n, ',');) names.push_back(n);
    } else {
      root = arg;
    }
  }
  std::vector<fs::path> subset;
  if (names.empty()) {
    subset = default_subset(root, 2);
  } else {
    for (const std::string& n : names) {
      for (const char* level : {"level1", "level2", "level3", "experts"}) {
        if (fs::exists(root / level / n / "op.json")) subset.push_back(root / level / n);
      }
    }
  }
  const fs::path work = fs::temp_directory_path() / fmt::format("aopt-bench-stage1-{}", getpid());
  fs::create_directories(work / "stripped");
  std::vector<fs::path> stripped;
  for (const fs::path& op : subset) {
    const fs::path copy = work / "stripped" / op.filename();
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
  fmt::print("stage I only, budget {}, {} operators, simulated latencies\n", budget, subset.size());
  variant_result marked = run_variant("marked", subset, work, budget, slots);
  variant_result synth = run_variant("stripped", stripped, work, budget, slots);
  fmt::print("\n{:<10} {:>10} {:>10} {:>12} {:>12} {:>10}\n", "variant", "GM speedup", "improved",
             "evaluations", "infeasible", "wall s");
  for (const auto& [name, r] : {std::pair{"marked", marked}, std::pair{"stripped", synth}}) {
    fmt::print("{:<10} {:>9.3f}x {:>5}/{:<4} {:>12} {:>11.1f}% {:>10.0f}\n", name, r.gm_speedup,
               r.improved, r.operators, r.evaluations,
               r.evaluations ? 100.0 * r.infeasible / r.evaluations : 0.0, r.wall_seconds);
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return 0;
}
