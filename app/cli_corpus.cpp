// `aopt corpus list [DIR] [--json] [--no-latency]`: the operator packages of a corpus folder with
// level, category, kind, dtypes and the latency of each package's own (baseline or expert) tiling
// and kernel on the configured device (the simulator by default), built by the same factory and
// configuration as `aopt run`'s.
//
// Exit status: 0 every package loaded (and, with latency, evaluated ok); 1 some evaluation was not
// ok; 2 bad input (missing folder, a broken package, bad configuration, unknown profile); 3 the
// configured device could not be set up.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/exit_codes.hpp"
#include "base/utf8.hpp"
#include "npu/op_package.hpp"
#include "runtime/device_factory.hpp"

namespace aopt::runtime {

namespace {

namespace fs = std::filesystem;

constexpr int exit_eval_failed = 1;

struct corpus_list_args {
  std::string dir;
  bool json = false;
  bool no_latency = false;
  uint32_t jobs = 2;
  config_options config;
  device_flags device;  // shorthands for [device] keys
};

struct corpus_entry {
  npu::op_package op;
  std::optional<npu::eval_result> eval;
};

fs::path default_corpus_dir() {
  if (fs::is_directory("corpus")) return "corpus";
  return fs::path(AOPT_SOURCE_DIR) / "corpus";
}

// Every folder below `root` that holds an op.json, sorted by path.
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

std::vector<std::string> dtypes_of(const npu::op_spec& spec) {
  std::vector<std::string> names;
  auto add = [&names](const npu::tensor_spec& t) {
    std::string name = npu::to_string(t.type);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const auto& t : spec.inputs) add(t);
  for (const auto& t : spec.outputs) add(t);
  return names;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string text;
  for (const auto& part : parts) {
    if (!text.empty()) text += separator;
    text += part;
  }
  return text;
}

// Evaluates every entry on `jobs` threads; device::evaluate is thread-safe.
void evaluate_all(std::vector<corpus_entry>& entries, npu::device& device,
                  const npu::eval_options& options, uint32_t jobs) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < entries.size(); i = next++) {
      const npu::op_package& op = entries[i].op;
      entries[i].eval = device.evaluate(op, op.host_source, op.kernel_source, options);
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < std::max(1u, jobs); ++t) threads.emplace_back(worker);
  for (auto& thread : threads) thread.join();
}

nlohmann::json to_json(const corpus_entry& entry) {
  const npu::op_spec& spec = entry.op.spec;
  nlohmann::json j = {{"name", spec.name},         {"level", spec.level},
                      {"category", spec.category}, {"kind", spec.kind},
                      {"dtypes", dtypes_of(spec)}, {"path", entry.op.dir.string()}};
  if (entry.eval) {
    j["status"] = npu::to_string(entry.eval->status);
    j["latency_us"] = entry.eval->ok() ? nlohmann::json(entry.eval->latency_us) : nlohmann::json();
    j["latency_is_simulated"] = entry.eval->latency_is_simulated;
    j["roofline_fraction"] =
        entry.eval->ok() ? nlohmann::json(entry.eval->roof.achieved_fraction) : nlohmann::json();
    if (!entry.eval->ok()) j["message"] = entry.eval->message;
  }
  return j;
}

void print_table(const std::vector<corpus_entry>& entries, const std::string& profile_id,
                 bool simulated) {
  const bool with_latency = !entries.empty() && entries.front().eval.has_value();
  fmt::print("{:<40} {:>5}  {:<20} {:<8} {:<26}", "NAME", "LEVEL", "CATEGORY", "KIND", "DTYPES");
  if (with_latency) fmt::print(" {:>12}  {}", "LATENCY_US", "STATUS");
  fmt::print("\n");
  for (const auto& entry : entries) {
    const npu::op_spec& spec = entry.op.spec;
    fmt::print("{:<40} {:>5}  {:<20} {:<8} {:<26}", spec.name, spec.level, spec.category, spec.kind,
               join(dtypes_of(spec), ","));
    if (entry.eval) {
      const npu::eval_result& r = *entry.eval;
      fmt::print(" {:>12}  {}", r.ok() ? fmt::format("{:.2f}", r.latency_us) : "-",
                 r.ok() ? "ok" : fmt::format("{}: {}", npu::to_string(r.status), r.message));
    }
    fmt::print("\n");
  }
  if (with_latency) {
    fmt::print("{} operators; latency {} on {}\n", entries.size(),
               simulated ? "simulated" : "measured", profile_id);
  } else {
    fmt::print("{} operators\n", entries.size());
  }
}

int run_corpus_list(const corpus_list_args& args) {
  auto bad_input = [](const std::string& message) {
    std::cerr << "aopt corpus list: " << message << "\n";
    return exit_bad_input;
  };
  result<config::aopt_config> config = load_config(args.config, device_overrides(args.device));
  if (!config.ok()) return bad_input(config.error().message());
  const fs::path root = args.dir.empty() ? default_corpus_dir() : fs::path(args.dir);
  if (!fs::is_directory(root)) return bad_input(root.string() + ": not a directory");

  std::vector<corpus_entry> entries;
  for (const auto& dir : find_packages(root)) {
    auto op = npu::load_op_package(dir);
    if (!op.ok()) return bad_input(op.error().message());
    entries.push_back({std::move(op).value(), std::nullopt});
  }
  // Baselines by level, then the expert kernels, as the corpus folders are laid out.
  std::stable_sort(
      entries.begin(), entries.end(), [](const corpus_entry& a, const corpus_entry& b) {
        return std::make_tuple(a.op.spec.kind != "baseline", a.op.spec.level, a.op.spec.name) <
               std::make_tuple(b.op.spec.kind != "baseline", b.op.spec.level, b.op.spec.name);
      });

  std::string profile_id;
  const bool simulated = config->device.kind == config::device_kind::sim;
  if (!args.no_latency) {
    result<std::shared_ptr<npu::device>> device = make_device(*config, secrets_to_redact(*config));
    if (!device.ok()) return report_device_error("aopt corpus list", device.error());
    evaluate_all(entries, **device, make_eval_options(config->device), args.jobs);
    profile_id = (*device)->profile_id();
  }

  if (args.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& entry : entries) list.push_back(to_json(entry));
    std::cout << dump_json(list, 2) << std::endl;
  } else {
    print_table(entries, profile_id, simulated);
  }
  const bool all_ok = std::all_of(entries.begin(), entries.end(),
                                  [](const corpus_entry& e) { return !e.eval || e.eval->ok(); });
  return all_ok ? exit_ok : exit_eval_failed;
}

}  // namespace

void add_corpus_command(CLI::App& app, cli_context& ctx) {
  CLI::App* corpus = app.add_subcommand("corpus", "Inspect an operator corpus");
  corpus->require_subcommand(1);
  auto args = std::make_shared<corpus_list_args>();
  CLI::App* list = corpus->add_subcommand(
      "list",
      "List the operator packages under DIR with level, category, kind, dtypes and their "
      "latency on the configured device (simulated by default). Exit status: 0 ok, 1 an "
      "evaluation failed, 2 bad input, 3 the device could not be set up.");
  list->add_option("dir", args->dir, "Corpus folder (default: ./corpus, else the source tree's)");
  list->add_flag("--json", args->json,
                 "Print one JSON array of {name, level, category, kind, dtypes, path, ...}");
  list->add_flag("--no-latency", args->no_latency, "Skip the simulator; list the packages only");
  list->add_option("--jobs", args->jobs, "Evaluations run at once")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  add_config_options(list, args->config);
  add_device_flags(list, args->device);
  list->callback([args, &ctx] { ctx.exit_code = run_corpus_list(*args); });
}

}  // namespace aopt::runtime
