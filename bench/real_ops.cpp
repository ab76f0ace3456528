// Real operators (issue 35): does aopt find speed in operators it did not write? Over a folder
// of operator packages (default ../shared/wild, real public operators with their sources
// unchanged), every package is first evaluated as dropped in (`aopt eval --json`, a real
// process); each one that evaluates ok then gets a real `aopt run` (offline policies, the
// configured strategy, alternating by default) in a database of its own holding the experience
// bank, built once from corpus/experts as bench_strategies builds it (`aopt bank build`, then
// `aopt bank export` and `aopt bank import` into each database). Every number is read from what
// aopt itself recorded (`aopt run --json`: its report's operator entry), never re-derived.
// Printed per operator: baseline and best latency, speedup, roofline fraction before and after,
// the evaluations, the infeasible candidates (failed on the device) and those rejected before
// it, the tunables Stage I searched with the expression each came from (NAME=value: the value
// its latest generation started from, the best tiling's then), the Stage II rewrites
// by origin (motifs, tuples), and the reason aopt gave; then the GM speedup and how many
// improved (beyond the measurement's resolution, as aopt judged it). Latencies are simulated.
//
//   bench_real_ops [FOLDER] [--budget N] [--ops a,b] [--parallel N] [--work DIR]
//                  [--aopt PATH] [--config FILE] [--set K=V]... [--include-dir DIR]...
//
// --work DIR keeps every operator's database, eval and report: run again with the same DIR (and
// the same build) and finished operators are reused, an interrupted run resumes (aopt run's
// campaigns resume by id). Helper headers the packages include but do not carry (a repository's
// include folder) come from their op.json's include_dirs or --include-dir, which both the
// drop-in eval and the campaign get (aopt run keeps them in the campaign's record), so no
// package is evaluated with folders its optimization would not see. CPU heavy: budget x operators
// simulator runs, --parallel (1 by default) at a time.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "base/subprocess.hpp"
#include "bench_work_dir.hpp"
#include "npu/dropin_survey.hpp"

namespace {

namespace fs = std::filesystem;

struct bench_args {
  std::string aopt;
  uint32_t budget = 40;
  std::string config_file;
  std::vector<std::string> sets;
  std::vector<std::string> include_dirs;
};

// The configuration arguments every aopt process of the bench gets.
std::vector<std::string> config_argv(const bench_args& a) {
  std::vector<std::string> out;
  if (!a.config_file.empty()) out.insert(out.end(), {"--config", a.config_file});
  for (const std::string& s : a.sets) out.insert(out.end(), {"--set", s});
  return out;
}

aopt::result<aopt::subprocess_result> run(std::vector<std::string> argv) {
  aopt::subprocess_options o;
  o.argv = std::move(argv);
  return aopt::run_subprocess(o);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  std::ofstream(tmp) << text;
  fs::rename(tmp, p);
}

// The last line of `text` that parses as a JSON object (aopt --json prints exactly one).
std::optional<nlohmann::json> json_of(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_object()) return j;
  return std::nullopt;
}

struct op_row {
  std::string name;
  std::string status;      // the drop-in eval's ("ok", "compile_error", ...) or "error"
  std::string message;     // why it did not run
  nlohmann::json outcome;  // aopt run --json's operators[0]
};

uint32_t total(const nlohmann::json& counts) {
  uint32_t n = 0;
  if (counts.is_object()) {
    for (const auto& [k, v] : counts.items()) n += v.get<uint32_t>();
  }
  return n;
}

std::string counts_text(const nlohmann::json& counts) {
  std::string out;
  if (!counts.is_object()) return out;
  for (const auto& [k, v] : counts.items())
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, v.get<uint32_t>());
  return out;
}

// Evaluates `pkg` as dropped in, then runs aopt on it; every step's output is kept in `dir`.
op_row run_operator(const bench_args& a, const fs::path& pkg, const fs::path& dir,
                    const fs::path& bank_file) {
  op_row row;
  row.name = pkg.filename().string();
  fs::create_directories(dir);
  const fs::path eval_file = dir / "eval.json";
  if (!fs::exists(eval_file)) {
    std::vector<std::string> argv = {a.aopt, "eval", pkg.string(), "--json"};
    for (const std::string& s : config_argv(a)) argv.push_back(s);
    for (const std::string& d : a.include_dirs) argv.insert(argv.end(), {"--include-dir", d});
    auto r = run(argv);
    if (!r.ok() || !json_of(r->stdout_text)) {
      row.status = "error";
      row.message =
          r.ok() ? "aopt eval: " + r->describe() + ": " + r->stderr_text : r.error().to_string();
      return row;
    }
    write_text(eval_file, r->stdout_text);
  }
  const nlohmann::json eval = *json_of(read_text(eval_file));
  row.status = eval.value("status", std::string("?"));
  if (row.status != "ok") {
    row.message = eval.value("message", std::string());
    return row;
  }
  const fs::path report_file = dir / "run.json";
  if (!fs::exists(report_file)) {
    const fs::path db = dir / "db";
    if (!fs::exists(dir / "bank.imported")) {
      std::vector<std::string> argv = {a.aopt, "bank",     "import", bank_file.string(),
                                       "--db", db.string()};
      for (const std::string& s : config_argv(a)) argv.push_back(s);
      auto r = run(argv);
      if (!r.ok() || !r->succeeded()) {
        row.status = "error";
        row.message = "aopt bank import: " + (r.ok() ? r->stderr_text : r.error().to_string());
        return row;
      }
      std::ofstream(dir / "bank.imported") << "ok\n";
    }
    std::vector<std::string> argv = {a.aopt,
                                     "run",
                                     pkg.string(),
                                     "--db",
                                     db.string(),
                                     "--campaign",
                                     "real-" + row.name,
                                     "--budget",
                                     std::to_string(a.budget),
                                     "--report",
                                     (dir / "reports").string(),
                                     "--json",
                                     "--set",
                                     "device.slots=1"};
    for (const std::string& s : config_argv(a)) argv.push_back(s);
    for (const std::string& d : a.include_dirs) argv.insert(argv.end(), {"--include-dir", d});
    auto r = run(argv);
    std::optional<nlohmann::json> j = r.ok() ? json_of(r->stdout_text) : std::nullopt;
    if (!j || !j->contains("operators") || (*j)["operators"].size() != 1) {
      row.status = "error";
      row.message =
          "aopt run: " + (r.ok() ? r->describe() + ": " + r->stderr_text : r.error().to_string());
      return row;
    }
    write_text(report_file, j->dump(1));
  }
  row.outcome = (*json_of(read_text(report_file)))["operators"][0];
  return row;
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 1.0;
  double sum = 0;
  for (double x : v) sum += std::log(x);
  return std::exp(sum / static_cast<double>(v.size()));
}

std::string percent(const nlohmann::json& roof, const char* key) {
  if (roof.value("bound_us", 0.0) <= 0) return "-";
  return fmt::format("{:.0f}%", 100 * roof.value(key, 0.0));
}

void print_row(const op_row& r, uint32_t budget) {
  if (r.outcome.is_null()) {
    std::string why = r.message.substr(0, r.message.find('\n'));
    fmt::print("{:<34} {}: {}\n", r.name, r.status, why.substr(0, 140));
    return;
  }
  const nlohmann::json& o = r.outcome;
  const nlohmann::json& roof = o["roofline"];
  fmt::print("{:<34} {:>10.2f} {:>10.2f} {:>7.3f}x {:>5} -> {:<5} {:>3}/{:<3} {:>6} {:>6}  {}\n",
             r.name, o.value("baseline_us", 0.0), o.value("best_us", 0.0), o.value("speedup", 1.0),
             percent(roof, "baseline_fraction"), percent(roof, "best_fraction"),
             o.value("evaluations", 0u), budget, total(o["failures"]), total(o["rejected"]),
             o.value("improved", false) ? "improved" : "not improved");
  std::string tunables;
  for (const auto& t : o.value("tunables", nlohmann::json::array())) {
    tunables += fmt::format("{}{}={}", tunables.empty() ? "" : "; ", t.value("name", ""),
                            t.value("value", int64_t{0}));
    const std::string note = t.value("note", "");
    if (!note.empty()) tunables += " (" + note + ")";
  }
  fmt::print("    tunables: {}\n", tunables.empty() ? "none" : tunables);
  if (total(o["failures"]) > 0) fmt::print("    infeasible: {}\n", counts_text(o["failures"]));
  if (total(o["rejected"]) > 0)
    fmt::print("    rejected before the device: {}\n", counts_text(o["rejected"]));
  const std::string stage2 = counts_text(o.value("stage2_by_origin", nlohmann::json::object()));
  fmt::print("    stage II applied: {}\n", stage2.empty() ? "nothing" : stage2);
  const std::string accepted = counts_text(o.value("accepted_by_origin", nlohmann::json::object()));
  if (!accepted.empty()) fmt::print("    accepted: {}\n", accepted);
  fmt::print("    reason: {}\n", o.value("reason", ""));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aopt on real operators: speedup, roofline, levers, motifs and reasons"};
  std::string root = (fs::path(AOPT_SOURCE_DIR) / ".." / "shared" / "wild").lexically_normal();
  const fs::path experts = fs::path(AOPT_SOURCE_DIR) / "corpus" / "experts";
  bench_args a;
  a.aopt = AOPT_BINARY;
  uint32_t parallel = 1;
  std::string work_given;
  std::vector<std::string> names;
  app.add_option("folder", root, "Folder of operator packages")->capture_default_str();
  app.add_option("--budget", a.budget, "Evaluations per operator (campaign.budget)")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  app.add_option("--ops", names, "Packages by folder name, comma-separated")->delimiter(',');
  app.add_option("--parallel", parallel, "aopt processes at a time, each with one device slot")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  app.add_option("--work", work_given,
                 "Keep databases and results here; a later run with the same folder resumes");
  app.add_option("--aopt", a.aopt, "The aopt binary")->capture_default_str();
  app.add_option("--config", a.config_file, "Configuration file (TOML) for every aopt process");
  app.add_option("--set", a.sets, "section.key=value for every aopt process (repeatable)");
  app.add_option("--include-dir", a.include_dirs,
                 "A folder of the operators' repository with helper headers they include but do "
                 "not carry, or a pattern of such folders (kernels/*/op_kernel), for aopt eval "
                 "and aopt run (repeatable)");
  CLI11_PARSE(app, argc, argv);

  std::vector<fs::path> packages;
  for (const fs::path& p : aopt::npu::dropin_packages(root)) {
    if (names.empty() || std::find(names.begin(), names.end(), p.filename()) != names.end())
      packages.push_back(p);
  }
  if (packages.empty()) {
    fmt::print(stderr, "bench: no operator packages selected under {} (skipped)\n", root);
    return 0;
  }
  auto work = aopt::bench::bench_work_dir::open(
      work_given, "aopt-bench-real-ops",
      {a.aopt, root, experts.string(), (fs::path(AOPT_SOURCE_DIR) / "npu" / "sim").string()});
  if (!work.ok()) {
    fmt::print(stderr, "bench: {}\n", work.error().to_string());
    return 2;
  }
  // The bank, built once as bench_strategies builds it, exported for every operator's database.
  const fs::path bank_file = work->path() / "bank.jsonl";
  if (!fs::exists(bank_file)) {
    fmt::print("building the experience bank from {} (heuristic rewind)\n", experts.string());
    std::fflush(stdout);
    const std::string bank_db = (work->path() / "bank-db").string();
    std::vector<std::string> build = {a.aopt, "bank", "build", experts.string(), "--db", bank_db};
    std::vector<std::string> exp = {a.aopt, "bank", "export", bank_file.string() + ".tmp",
                                    "--db", bank_db};
    for (const std::string& s : config_argv(a)) {
      build.push_back(s);
      exp.push_back(s);
    }
    for (const auto& step : {build, exp}) {
      auto r = run(step);
      if (!r.ok() || !r->succeeded()) {
        fmt::print(stderr, "bench: aopt bank {} failed: {}\n", step[2],
                   r.ok() ? r->stderr_text : r.error().to_string());
        return 1;
      }
    }
    fs::rename(bank_file.string() + ".tmp", bank_file);
  }

  fmt::print("{} packages of {}, budget {}, {} at a time, offline policies, simulated latencies\n",
             packages.size(), root, a.budget, parallel);
  fmt::print("{:<34} {:>10} {:>10} {:>8} {:>14} {:>7} {:>6} {:>6}\n", "operator", "base us",
             "best us", "speedup", "roofline", "evals", "infeas", "reject");
  std::fflush(stdout);
  std::vector<op_row> rows(packages.size());
  std::atomic<size_t> next{0};
  std::mutex print;
  auto worker = [&] {
    for (size_t i = next++; i < packages.size(); i = next++) {
      op_row r =
          run_operator(a, packages[i], work->path() / "ops" / packages[i].filename(), bank_file);
      std::lock_guard lock(print);
      print_row(r, a.budget);
      std::fflush(stdout);
      rows[i] = std::move(r);
    }
  };
  std::vector<std::thread> helpers;
  for (uint32_t t = 1; t < parallel; ++t) helpers.emplace_back(worker);
  worker();
  for (std::thread& t : helpers) t.join();

  std::vector<double> speedups;
  uint32_t improved = 0, not_ok = 0;
  for (const op_row& r : rows) {
    if (r.outcome.is_null() || r.outcome.value("phase", "") == "failed") {
      ++not_ok;
      continue;
    }
    speedups.push_back(r.outcome.value("speedup", 1.0));
    if (r.outcome.value("improved", false)) ++improved;
  }
  fmt::print(
      "\n{} operators evaluate ok and ran ({} did not): GM speedup {:.3f}x, improved {} of {} "
      "(beyond the measurement's resolution), budget {}\n",
      speedups.size(), not_ok, geomean(speedups), improved, speedups.size(), a.budget);
  return 0;
}
