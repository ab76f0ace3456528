// How fast the simulator device turns a candidate around: per operator package, the compile
// time with a cold object cache, the compile time of a Stage I step (host unit recompiled,
// kernel and reference cached), the simulation time, the simulated latency and the simulator's
// throughput in tensor elements (inputs + outputs, over all input sets) per wall second.
//
//   bench_sim_speed [op-dir...]     default: tests/data/ops/* and corpus/*/* of the source tree
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "npu/hardware_profile.hpp"
#include "npu/sim/device/scratch_dir.hpp"
#include "npu/sim/device/sim_device.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> default_op_dirs() {
  std::vector<fs::path> dirs;
  const fs::path source = AOPT_SOURCE_DIR;
  auto add_children = [&](const fs::path& parent) {
    std::error_code ec;
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
      if (fs::exists(e.path() / "op.json")) found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());
    dirs.insert(dirs.end(), found.begin(), found.end());
  };
  add_children(source / "tests/data/ops");
  std::error_code ec;
  std::vector<fs::path> groups;
  for (const auto& e : fs::directory_iterator(source / "corpus", ec)) {
    if (e.is_directory()) groups.push_back(e.path());
  }
  std::sort(groups.begin(), groups.end());
  for (const auto& g : groups) add_children(g);
  return dirs;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> dirs;
  for (int i = 1; i < argc; ++i) dirs.emplace_back(argv[i]);
  if (dirs.empty()) dirs = default_op_dirs();

  auto profile = aopt::npu::find_hardware_profile("ascend910b4",
                                                  fs::path(AOPT_SOURCE_DIR) / "config/hardware");
  if (!profile.ok()) {
    fmt::print(stderr, "{}\n", profile.error().to_string());
    return 2;
  }
  auto work = aopt::npu::scratch_dir::create(fs::temp_directory_path(), "aopt-bench-sim-");
  if (!work.ok()) {
    fmt::print(stderr, "{}\n", work.error().to_string());
    return 2;
  }
  aopt::npu::sim_device_options options;
  options.work_dir = work->path();
  aopt::npu::sim_device device(*profile, options);
  aopt::npu::eval_options eval;
  eval.timeout_seconds = 30;

  fmt::print("profile {}; latency is simulated; times are wall seconds on this host\n",
             device.profile_id());
  fmt::print("{:<28} {:>16} {:>10} {:>10} {:>10} {:>14} {:>14}\n", "operator", "status",
             "cold_cc_s", "stage1_cc_s", "sim_s", "latency_us", "sim_elem/s");
  for (const auto& dir : dirs) {
    auto op = aopt::npu::load_op_package(dir);
    if (!op.ok()) {
      fmt::print("{:<28} {}\n", dir.filename().string(), op.error().to_string());
      continue;
    }
    auto cold = device.evaluate(*op, op->host_source, op->kernel_source, eval);
    // A Stage I step: a different tiling program text, the same kernel.
    auto stage1 = device.evaluate(*op, op->host_source + "\n// bench\n", op->kernel_source, eval);
    std::string status = aopt::npu::to_string(cold.status);
    if (!cold.error_kind.empty()) status += "/" + cold.error_kind;
    uint64_t elements = 0;
    for (const auto& t : op->spec.inputs) elements += static_cast<uint64_t>(t.numel());
    for (const auto& t : op->spec.outputs) elements += static_cast<uint64_t>(t.numel());
    elements *= eval.input_sets;
    double throughput = cold.run_seconds > 0 ? static_cast<double>(elements) / cold.run_seconds : 0;
    fmt::print("{:<28} {:>16} {:>10.3f} {:>10.3f} {:>10.3f} {:>14.3f} {:>14.3g}\n", op->spec.name,
               status, cold.compile_seconds, stage1.compile_seconds, cold.run_seconds,
               cold.latency_us, throughput);
  }
  return 0;
}
