// `aopt eval <op-dir>`: one evaluation of an operator package on the configured device (the
// simulator unless the configuration says otherwise), with its profile. The device and the
// evaluation limits come from the same configuration and factory as `aopt run`'s, so a candidate
// meets the same sandbox limits here as in a campaign; the flags below are shorthands for keys of
// [device].
//
// Exit status: 0 the candidate is ok; 1 the candidate failed (compile, runtime, precision,
// timeout); 2 bad input (missing operator directory, broken op.json, bad configuration, unknown
// profile, unreadable --tiling/--kernel file); 3 aopt itself could not evaluate (infra_error).
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/cli_include_folder.hpp"
#include "app/exit_codes.hpp"
#include "base/utf8.hpp"
#include "npu/op_package.hpp"
#include "runtime/device_factory.hpp"

namespace aopt::runtime {

namespace {

constexpr int exit_candidate_failed = 1;
constexpr int exit_infra = 3;

struct eval_args {
  std::string op_dir;
  bool json = false;
  std::string tiling_file;
  std::string kernel_file;
  config_options config;
  // Shorthands for [device] keys; unset ones leave the configuration's value.
  device_flags device;
  double timeout_seconds = 0;
  bool keep_scratch = false;
  std::string work_dir;
  bool no_auto_sync = false;
  std::vector<std::string> include_dirs;
};

std::vector<std::string> flag_overrides(const eval_args& a) {
  std::vector<std::string> o = device_overrides(a.device);
  if (a.timeout_seconds != 0) o.push_back(fmt::format("device.timeout_s={}", a.timeout_seconds));
  if (a.keep_scratch) o.push_back("device.keep_scratch=true");
  if (!a.work_dir.empty()) o.push_back("device.work_dir=" + a.work_dir);
  if (a.no_auto_sync) o.push_back("device.auto_sync=false");
  return o;
}

result<std::string> read_source(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(fmt::format("{} {}: cannot open", what, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string percent(double ratio) {
  return fmt::format("{:5.1f} %", ratio * 100);
}

void print_report(const npu::op_package& op, const std::string& profile_id,
                  const npu::eval_result& r) {
  const auto& p = r.profile;
  fmt::print("operator      {} (level {}, {}) on {}\n", op.spec.name, op.spec.level,
             op.spec.category.empty() ? "uncategorized" : op.spec.category, profile_id);
  fmt::print("status        {}{}\n", npu::to_string(r.status),
             r.error_kind.empty() ? "" : " (" + r.error_kind + ")");
  if (!r.message.empty()) fmt::print("message       {}\n", r.message);
  if (r.ok() || r.status == npu::eval_status::precision_error) {
    fmt::print("latency       {:.3f} us ({}", r.latency_us,
               r.latency_is_simulated ? "simulated" : "measured");
    if (r.latency.repetitions > 1) {
      fmt::print(", median of {}, min {:.3f}, max {:.3f}", r.latency.repetitions, r.latency.min_us,
                 r.latency.max_us);
    }
    fmt::print(")\n");
    fmt::print("block dim     {}\n", p.block_dim);
    fmt::print("pipe          busy (us)   ratio\n");
    // The cube's pipes only where the cube worked, so a vector kernel's report reads as before.
    struct pipe_row {
      const char* name;
      const npu::pipe_busy* busy;
      bool cube;
    };
    const pipe_row pipes[] = {{"scalar", &p.scalar, false}, {"vector", &p.vector, false},
                              {"MTE2", &p.mte2, false},     {"MTE3", &p.mte3, false},
                              {"MTE1", &p.mte1, true},      {"cube (M)", &p.cube, true},
                              {"FIX", &p.fixpipe, true}};
    for (const pipe_row& row : pipes) {
      if (row.cube && !(row.busy->time_us > 0)) continue;
      fmt::print("  {:<10} {:>10.3f}  {}\n", row.name, row.busy->time_us, percent(row.busy->ratio));
    }
    fmt::print("UB high water {} of {} bytes\n", p.ub_high_water_bytes, p.ub_capacity_bytes);
    fmt::print("GM bytes      {} read, {} written ({} bursts, {:.0f} bytes on average)\n",
               p.gm_read_bytes, p.gm_write_bytes, p.dma_bursts, p.mean_burst_bytes);
    const std::string compute =
        r.roof.compute_bound_us > 0 ? fmt::format(", cube {:.3f}", r.roof.compute_bound_us) : "";
    fmt::print("roofline      bound {:.3f} us (memory {:.3f}, vector {:.3f}{}); achieved {}\n",
               r.roof.bound_us, r.roof.memory_bound_us, r.roof.vector_bound_us, compute,
               percent(r.roof.achieved_fraction));
  }
  fmt::print("time          compile {:.2f} s, run {:.2f} s\n", r.compile_seconds, r.run_seconds);
  std::string phases;
  for (const auto& [name, seconds] : npu::named_phases(r.phases)) {
    if (seconds > 0)
      phases += fmt::format("{}{} {:.3f}", phases.empty() ? "" : ", ", name, seconds);
  }
  if (!phases.empty()) fmt::print("phases (s)    {}\n", phases);
  if (!r.diagnostics.empty()) {
    fmt::print("diagnostics\n");
    for (const auto& line : r.diagnostics) fmt::print("  {}\n", line);
  }
}

int run_eval(const eval_args& args) {
  auto bad_input = [](const std::string& message) {
    std::cerr << "aopt eval: " << message << "\n";
    return exit_bad_input;
  };
  result<config::aopt_config> config = load_config(args.config, flag_overrides(args));
  if (!config.ok()) return bad_input(config.error().message());
  npu::package_load_options load;
  load.include_dirs.assign(args.include_dirs.begin(), args.include_dirs.end());
  auto op = npu::load_op_package(args.op_dir, load);
  if (!op.ok()) return bad_input(op.error().message());
  for (const auto& [path, source] : op->joined_headers) {
    std::cerr << "aopt eval: " << path << " joined the package from " << source.string() << "\n";
  }

  std::string tiling = op->host_source;
  std::string kernel = op->kernel_source;
  if (!args.tiling_file.empty()) {
    auto text = read_source(args.tiling_file, "--tiling");
    if (!text.ok()) return bad_input(text.error().message());
    tiling = std::move(text).value();
  }
  if (!args.kernel_file.empty()) {
    auto text = read_source(args.kernel_file, "--kernel");
    if (!text.ok()) return bad_input(text.error().message());
    kernel = std::move(text).value();
  }

  result<std::shared_ptr<npu::device>> made = make_device(*config, secrets_to_redact(*config));
  if (!made.ok()) return report_device_error("aopt eval", made.error());
  npu::device& device = **made;
  const npu::eval_options options = make_eval_options(config->device);
  npu::eval_result r = device.evaluate(*op, tiling, kernel, options);
  // The candidate's output may hold any bytes; the report and the JSON are UTF-8.
  npu::make_valid_utf8(r);

  if (args.json) {
    std::cout << dump_json(nlohmann::json(r), 2) << std::endl;
  } else {
    print_report(*op, device.profile_id(), r);
  }
  if (r.ok()) return exit_ok;
  return r.status == npu::eval_status::infra_error ? exit_infra : exit_candidate_failed;
}

}  // namespace

void add_eval_command(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<eval_args>();
  CLI::App* eval = app.add_subcommand(
      "eval",
      "Compile, run, check and time one operator package on the configured device (the "
      "simulator by default: latency is simulated). Exit status: 0 ok, 1 candidate failed, 2 bad "
      "input, 3 aopt failure.");
  eval->add_option("op-dir", args->op_dir, "Operator package directory (holds op.json)")
      ->required();
  eval->add_flag("--json", args->json, "Print exactly one JSON object (the eval result)");
  eval->add_option(
          "--include-dir", args->include_dirs,
          "A folder of the operator's repository holding helper headers it includes but "
          "does not carry, or a pattern of such folders (kernels/*/op_kernel: every match, "
          "sorted); searched after op.json's include_dirs; repeatable")
      ->check(include_folder());
  eval->add_option("--tiling", args->tiling_file, "Tiling program replacing op_host/<name>.cpp");
  eval->add_option("--kernel", args->kernel_file, "Kernel replacing op_kernel/<name>.cpp");
  add_config_options(eval, args->config);
  add_device_flags(eval, args->device);
  eval->add_option("--timeout", args->timeout_seconds,
                   "Wall-clock limit of the run, seconds (device.timeout_s)")
      ->check(CLI::Range(0.001, 86400.0));
  eval->add_option(
      "--work-dir", args->work_dir,
      "Scratch and object-cache directory (device.work_dir; default: <temp>/aopt-sim)");
  eval->add_flag("--keep-scratch", args->keep_scratch,
                 "Keep the scratch directory of a failed evaluation (device.keep_scratch)");
  eval->add_flag("--no-auto-sync", args->no_auto_sync,
                 "Judge the kernel as compiled without CANN's automatic scalar <-> vector/MTE "
                 "synchronisation (device.auto_sync = false)");
  eval->callback([args, &ctx] { ctx.exit_code = run_eval(*args); });
}

}  // namespace aopt::runtime
