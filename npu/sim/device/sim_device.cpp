#include "npu/sim/device/sim_device.hpp"

#include <signal.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr const char* spec_file = "spec.json";
constexpr const char* result_file = "result.json";
constexpr size_t candidate_output_limit = 64 * 1024;
constexpr size_t runtime_diagnostic_lines = 40;

std::vector<std::string> output_lines(const std::string& text, size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (lines.size() == max_lines) {
      lines.push_back("... (truncated)");
      break;
    }
    lines.push_back(line);
  }
  return lines;
}

// Reads the driver's result; false when there is none or it is not a complete result.
bool read_driver_result(const fs::path& path, eval_result& out, std::string& problem) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path);
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    out = j.get<eval_result>();
    return true;
  } catch (const std::exception& e) {
    problem = e.what();
    return false;
  }
}

// What a candidate the sandbox caught was after, for the error message: its first attempt to
// write outside its scratch dir or to reach another process. Empty when there was none.
std::string sandbox_violation(const subprocess_result& ran, const fs::path& cache_dir) {
  if (!ran.exited && ran.term_signal == SIGSYS) {
    return "the sandbox killed the candidate for reaching another process (ptrace, "
           "process_vm_readv/writev or pidfd_getfd of its parent: SIGSYS)";
  }
  for (const auto& denial : ran.denied_access) {
    if (denial.kind == "process") {
      return "the sandbox refused the candidate access to another process's memory or "
             "environment (" +
             denial.path + ")";
    }
    if (denial.kind == "write") {
      const std::string cache = cache_dir.string() + "/";
      const bool shared_cache = denial.path.compare(0, cache.size(), cache) == 0;
      return std::string("the sandbox refused the candidate writing ") +
             (shared_cache ? "the shared compile cache (" : "outside its scratch directory (") +
             denial.path + ")";
    }
  }
  return {};
}

}  // namespace

sim_device::sim_device(sim::hw_profile profile, sim_device_options options)
    : profile_(std::move(profile)), options_(std::move(options)) {
  if (options_.work_dir.empty()) options_.work_dir = fs::temp_directory_path() / "aopt-sim";
  if (options_.cache_dir.empty()) options_.cache_dir = options_.work_dir / "objcache";
  // What runs killed before they could clean up left behind (their owner lock is free).
  scratch_dir::sweep(options_.work_dir);
  cache_ = std::make_unique<compile_cache>(options_.cache_dir, options_.cache_max_bytes);
  builder_ = std::make_unique<candidate_builder>(options_.toolchain, *cache_);
}

sim_device::~sim_device() = default;

std::string sim_device::profile_id() const {
  // A profile run without compiler auto-sync judges kernels differently: its own cache entries.
  return "sim:" + profile_.name + (profile_.auto_sync ? "" : "+no-auto-sync");
}

nlohmann::json sim_device::driver_spec(const op_package& op, const eval_options& options) const {
  nlohmann::json hw;
  sim::to_json(hw, profile_);
  return {{"op", op.spec},
          {"hw", hw},
          {"input_sets", options.input_sets},
          {"repetitions", options.repetitions},
          {"detect_races", options.detect_races},
          {"noise_stddev_fraction", options.noise_stddev_fraction},
          {"noise_seed", options.noise_seed}};
}

eval_result sim_device::evaluate(const op_package& op, const std::string& tiling_source,
                                 const std::string& kernel_source, const eval_options& options) {
  eval_result r;
  r.device = "sim";
  r.device_profile = profile_.name;
  r.latency_is_simulated = true;
  auto fail = [&](eval_status status, std::string kind, std::string message) {
    r.status = status;
    r.error_kind = std::move(kind);
    r.message = std::move(message);
    return r;
  };

  auto scratch = scratch_dir::create(options_.work_dir, op.spec.name + "-");
  if (!scratch.ok()) return fail(eval_status::infra_error, "scratch", scratch.error().message());
  // Keeps the scratch dir of a failed evaluation when asked to, and says where it is.
  auto finish = [&]() -> eval_result {
    if (!r.ok() && options_.keep_scratch) {
      scratch->keep();
      r.diagnostics.push_back("scratch directory kept: " + scratch->path().string());
    }
    return r;
  };

  try {
    build_limits limits;
    limits.compile_timeout_seconds = options.compile_timeout_seconds;
    limits.address_space_bytes = options_.compiler_address_space_bytes;
    limits.parallel_compiles = options_.parallel_compiles;
    limits.redact = options_.redact;
    build_outcome built =
        builder_->build(op, tiling_source, kernel_source, scratch->path(), limits);
    r.compile_seconds = built.seconds;
    if (built.result != build_outcome::kind::ok) {
      bool infra = built.result == build_outcome::kind::infra_error;
      fail(infra ? eval_status::infra_error : eval_status::compile_error,
           infra ? "toolchain" : built.error_kind, built.message);
      r.diagnostics = std::move(built.diagnostics);
      return finish();
    }

    {
      std::ofstream spec(scratch->path() / spec_file);
      spec << driver_spec(op, options).dump(1);
      if (!spec) {
        fail(eval_status::infra_error, "scratch", "cannot write " + std::string(spec_file));
        return finish();
      }
    }

    subprocess_options run;
    run.argv = {built.executable.string(), spec_file, result_file};
    run.working_dir = scratch->path().string();
    run.inherit_environment = false;
    run.environment = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
    run.output_limit_bytes = candidate_output_limit;
    run.limits.wall_seconds = options.timeout_seconds > 0 ? options.timeout_seconds : 60;
    run.limits.cpu_seconds = options_.cpu_seconds;
    run.limits.address_space_bytes = options_.address_space_bytes;
    run.limits.file_size_bytes = options_.file_size_bytes;
    run.limits.max_processes = options_.max_processes;
    run.sandbox = options_.sandbox;
    run.redact = options_.redact;
    auto ran = run_subprocess(run);
    if (!ran.ok()) {
      fail(eval_status::infra_error, "sandbox",
           "cannot run the candidate: " + ran.error().message());
      return finish();
    }
    r.run_seconds = ran->wall_seconds;
    std::vector<std::string> output = output_lines(ran->stderr_text, runtime_diagnostic_lines);
    // A candidate caught reaching outside its sandbox is failed whatever it reported.
    if (std::string violation = sandbox_violation(*ran, fs::weakly_canonical(options_.cache_dir));
        !violation.empty()) {
      fail(eval_status::runtime_error, "sandbox_violation", violation);
      for (const auto& denial : ran->denied_access) {
        output.push_back("sandbox refused " + denial.kind + ": " + denial.path);
      }
      r.diagnostics = std::move(output);
      return finish();
    }

    if (ran->timed_out) {
      fail(eval_status::timeout, "wall_clock",
           fmt::format("the candidate ran longer than {:g} s and was killed",
                       run.limits.wall_seconds));
      r.diagnostics = std::move(output);
      return finish();
    }
    if (!ran->exited && ran->term_signal == SIGXCPU) {
      fail(eval_status::timeout, "cpu_time",
           fmt::format("the candidate used more than {} s of CPU time and was killed",
                       run.limits.cpu_seconds));
      r.diagnostics = std::move(output);
      return finish();
    }

    eval_result driver;
    std::string problem;
    if (read_driver_result(scratch->path() / result_file, driver, problem)) {
      driver.device = r.device;
      driver.device_profile = r.device_profile;
      driver.latency_is_simulated = true;
      driver.compile_seconds = r.compile_seconds;
      driver.run_seconds = r.run_seconds;
      driver.from_cache = false;
      r = std::move(driver);
      return finish();
    }
    // No result: if the machine cannot hold a run (full disk, no descriptors), that is why.
    if (status usable = check_scratch_usable(scratch->path()); !usable.ok()) {
      fail(eval_status::infra_error, "scratch",
           "the candidate left no result (" + ran->describe() + "): " + usable.message());
      return finish();
    }
    if (!ran->exited) {
      fail(eval_status::runtime_error, "signal",
           "the candidate was killed by " + signal_name(ran->term_signal));
    } else if (!problem.empty()) {
      fail(eval_status::runtime_error, "crash",
           "the candidate left an unreadable result.json (" + problem + ")");
    } else {
      fail(eval_status::runtime_error, "crash",
           fmt::format("the candidate exited with code {} without writing a result",
                       ran->exit_code));
    }
    r.diagnostics = std::move(output);
    return finish();
  } catch (const std::exception& e) {
    fail(eval_status::infra_error, "internal", std::string("sim_device: ") + e.what());
    return finish();
  }
}

}  // namespace aopt::npu
