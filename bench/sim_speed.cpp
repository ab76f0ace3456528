// How fast the simulator device turns a candidate around, per operator package:
//
//   cold_cc_s    compile + link of kernel and host with an empty object cache; the build runs
//                beside the reference's build and runs, so on a small machine it shares the cores
//   cold_eval_s  the whole first evaluation with an empty object cache: inputs drawn, reference
//                built and run, candidate built, run and judged
//   kernel_cc_s  a Stage II step: a new kernel text and object (a function added), host and
//                reference objects cached: compile, symbol check and link
//   tiling_cc_s  a Stage I step that changes the tiling program's code: a new text and object
//                (a function added), kernel and reference objects cached
//   value_cc_s   a Stage I step as the mutator makes it: one value of the tiling program's
//                EVOLVE-BLOCK spelled anew (decimal to hex: another text, the same tiling, so
//                sim_s is comparable), which a lifted build serves from the caches
//                (npu/sim/device/tiling_constant_lift.hpp); "-" for a program without a block
//   sim_s        the candidate process: every input set run, checked and the first one timed
//   sim_elem/s   tensor elements (inputs + outputs, over all input sets) per wall second of sim_s
//
// A second table splits the Stage I and II evaluations' wall time into the device's phases
// (npu::eval_phases: inputs, reference, compile, symbols, link, screen_wait, run, decode, check,
// timing), medians over the evaluations of each operator.
//
// Each figure is the median over --reps evaluations (the cold compile is measured once). Times
// are wall seconds on this host; latency_us is the simulated latency, not a hardware measurement.
// The device comes from the loaded configuration through the same factory as `aopt run`'s, with
// a fresh work dir.
//
//   bench_sim_speed [--reps N] [--config FILE] [--set K=V]... [op-dir...]
//   default operators: a handful of corpus operators per level
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "app/cli_config.hpp"
#include "base/scratch_dir.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/tiling_constant_lift.hpp"
#include "runtime/device_factory.hpp"

namespace fs = std::filesystem;

namespace {

const char* const default_ops[] = {
    "corpus/level1/add_custom",          "corpus/level1/gelu_custom",
    "corpus/level1/reduce_sum_custom",   "corpus/level1/cast_fp32_fp16_custom",
    "corpus/level2/add_rms_norm_custom", "corpus/level2/clamp_custom",
    "corpus/level3/group_norm_custom",   "corpus/level3/rotary_embedding_custom",
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string status_of(const aopt::npu::eval_result& r) {
  std::string s = aopt::npu::to_string(r.status);
  if (!r.error_kind.empty()) s += "/" + r.error_kind;
  return s;
}

// The tiling program with its first lifted constant's value spelled in hex with `zeros` leading
// zeros: another text, the same program. Empty when the program has no such constant.
std::string respelled_value(const std::string& tiling, int zeros) {
  const auto lifted = aopt::npu::lift_tiling_constants(tiling);
  if (!lifted) return {};
  const std::string decimal =
      lifted->names.front() + " = " + std::to_string(lifted->values.front()) + ";";
  const size_t at = tiling.find(decimal);
  if (at == std::string::npos) return {};
  const std::string hex =
      fmt::format("{} = 0x{}{:x};", lifted->names.front(),
                  std::string(static_cast<size_t>(zeros), '0'), lifted->values.front());
  return tiling.substr(0, at) + hex + tiling.substr(at + decimal.size());
}

struct op_figures {
  std::string name;
  std::string status;
  double cold_cc = 0, cold_eval = 0, kernel_cc = 0, tiling_cc = 0, value_cc = -1, sim = 0,
         latency = 0, throughput = 0;
  std::vector<std::pair<const char*, double>> phases;  // medians, in the device's order
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"How fast the simulator device turns a candidate around"};
  int reps = 3;
  std::vector<std::string> op_dirs;
  aopt::runtime::config_options config_options;
  app.add_option("--reps", reps, "Evaluations per figure")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("op-dir", op_dirs, "Operator packages (default: some corpus operators)");
  aopt::runtime::add_config_options(&app, config_options);
  CLI11_PARSE(app, argc, argv);
  std::vector<fs::path> dirs(op_dirs.begin(), op_dirs.end());
  if (dirs.empty()) {
    for (const char* op : default_ops) dirs.push_back(fs::path(AOPT_SOURCE_DIR) / op);
  }

  // A fresh work dir holds a fresh object cache, so the first compile of each operator is cold.
  auto work = aopt::scratch_dir::create(fs::temp_directory_path(), "aopt-bench-sim-");
  if (!work.ok()) {
    fmt::print(stderr, "{}\n", work.error().to_string());
    return 2;
  }
  auto config =
      aopt::runtime::load_config(config_options, {"device.work_dir=" + work->path().string()});
  if (!config.ok()) {
    fmt::print(stderr, "{}\n", config.error().message());
    return 2;
  }
  auto made = aopt::runtime::make_device(*config);
  if (!made.ok()) {
    fmt::print(stderr, "{}\n", made.error().message());
    return 2;
  }
  aopt::npu::device& device = **made;
  const aopt::npu::eval_options eval = aopt::runtime::make_eval_options(config->device);

  fmt::print(
      "profile {}; {} input sets; medians over {} evaluations; wall seconds on this host; "
      "latency is simulated\n",
      device.profile_id(), eval.input_sets, reps);
  fmt::print("{:<30} {:>14} {:>9} {:>11} {:>11} {:>11} {:>10} {:>8} {:>12} {:>11}\n", "operator",
             "status", "cold_cc_s", "cold_eval_s", "kernel_cc_s", "tiling_cc_s", "value_cc_s",
             "sim_s", "latency_us", "sim_elem/s");
  std::vector<op_figures> all;
  for (const auto& dir : dirs) {
    auto op = aopt::npu::load_op_package(dir);
    if (!op.ok()) {
      fmt::print("{:<30} {}\n", dir.filename().string(), op.error().to_string());
      continue;
    }
    uint64_t elements = 0;
    for (const auto& t : op->spec.inputs) elements += static_cast<uint64_t>(t.numel());
    for (const auto& t : op->spec.outputs) elements += static_cast<uint64_t>(t.numel());
    elements *= eval.input_sets;

    op_figures f;
    f.name = op->spec.name;
    const auto cold_start = std::chrono::steady_clock::now();
    const auto cold = device.evaluate(*op, op->host_source, op->kernel_source, eval);
    f.cold_eval =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - cold_start).count();
    f.cold_cc = cold.compile_seconds;
    f.status = status_of(cold);
    std::vector<double> kernel_cc, tiling_cc, value_cc, sim, latency, throughput;
    std::vector<std::vector<double>> phase_samples;
    for (int rep = 0; rep < reps; ++rep) {
      // A new function makes a new source text and a new object, as a Stage II (kernel) or
      // Stage I (tiling) step's code does: the unit compiles, its symbols are checked and the
      // candidate links anew (a comment would leave the object, and so the link, as it was).
      const std::string salt =
          fmt::format("\nnamespace aopt_bench_step {{ int salt() {{ return {}; }} }}\n", rep);
      const auto k = device.evaluate(*op, op->host_source, op->kernel_source + salt, eval);
      const auto t = device.evaluate(*op, op->host_source + salt, op->kernel_source, eval);
      kernel_cc.push_back(k.compile_seconds);
      tiling_cc.push_back(t.compile_seconds);
      std::vector<const aopt::npu::eval_result*> steps = {&k, &t};
      aopt::npu::eval_result v;
      if (const std::string respelled = respelled_value(op->host_source, rep + 1);
          !respelled.empty()) {
        v = device.evaluate(*op, respelled, op->kernel_source, eval);
        value_cc.push_back(v.compile_seconds);
        steps.push_back(&v);
      }
      for (const auto* r : steps) {
        if (r->status != cold.status) f.status = status_of(*r) + " (varies)";
        sim.push_back(r->run_seconds);
        const auto named = aopt::npu::named_phases(r->phases);
        phase_samples.resize(named.size());
        for (size_t i = 0; i < named.size(); ++i) phase_samples[i].push_back(named[i].second);
        latency.push_back(r->latency_us);
        if (r->run_seconds > 0) {
          throughput.push_back(static_cast<double>(elements) / r->run_seconds);
        }
      }
    }
    f.kernel_cc = median(kernel_cc);
    f.tiling_cc = median(tiling_cc);
    if (!value_cc.empty()) f.value_cc = median(value_cc);
    f.sim = median(sim);
    f.latency = median(latency);
    f.throughput = median(throughput);
    const auto names = aopt::npu::named_phases({});
    for (size_t i = 0; i < phase_samples.size(); ++i) {
      f.phases.emplace_back(names[i].first, median(phase_samples[i]));
    }
    const std::string value_text = f.value_cc < 0 ? "-" : fmt::format("{:.3f}", f.value_cc);
    fmt::print(
        "{:<30} {:>14} {:>9.3f} {:>11.3f} {:>11.3f} {:>11.3f} {:>10} {:>8.3f} {:>12.3f} "
        "{:>11.3g}\n",
        f.name, f.status, f.cold_cc, f.cold_eval, f.kernel_cc, f.tiling_cc, value_text, f.sim,
        f.latency, f.throughput);
    std::fflush(stdout);
    all.push_back(f);
  }
  if (all.size() > 1) {
    auto column = [&](double op_figures::*field) {
      std::vector<double> v;
      for (const auto& f : all) v.push_back(f.*field);
      return median(v);
    };
    std::vector<double> values;
    for (const auto& f : all) {
      if (f.value_cc >= 0) values.push_back(f.value_cc);
    }
    const std::string value_cc = values.empty() ? "-" : fmt::format("{:.3f}", median(values));
    fmt::print(
        "{:<30} {:>14} {:>9.3f} {:>11.3f} {:>11.3f} {:>11.3f} {:>10} {:>8.3f} {:>12} {:>11.3g}\n",
        "median over operators", "", column(&op_figures::cold_cc), column(&op_figures::cold_eval),
        column(&op_figures::kernel_cc), column(&op_figures::tiling_cc), value_cc,
        column(&op_figures::sim), "", column(&op_figures::throughput));
  }
  if (!all.empty() && !all.front().phases.empty()) {
    fmt::print("\nphases of the Stage I and II evaluations, median seconds\n{:<30}", "operator");
    for (const auto& [name, seconds] : all.front().phases) fmt::print(" {:>11}", name);
    fmt::print("\n");
    for (const auto& f : all) {
      fmt::print("{:<30}", f.name);
      for (const auto& [name, seconds] : f.phases) fmt::print(" {:>11.4f}", seconds);
      fmt::print("\n");
    }
  }
  return 0;
}
