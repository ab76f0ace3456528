#include "npu/sim/device/sim_device.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/content_hash.hpp"
#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"
#include "npu/sim/device/checker_identity.hpp"
#include "npu/sim/device/expected_cache.hpp"
#include "npu/sim/device/process_environment.hpp"
#include "npu/sim/device/sealed_memfd.hpp"
#include "npu/sim/device/static_screen.hpp"
#include "npu/sim/runtime/crash_report.hpp"
#include "npu/sim/runtime/driver_codec.hpp"
#include "npu/sim/runtime/driver_expected.hpp"
#include "npu/sim/runtime/driver_judge.hpp"
#include "npu/sim/runtime/driver_report.hpp"
#include "npu/sim/runtime/driver_spec.hpp"
#include "npu/sim/runtime/lifted_values.hpp"
#include "npu/sim/runtime/read_mapping.hpp"
#include "npu/sim/runtime/shared_inputs.hpp"
#include "npu/sim/runtime/tiling_crash_guard.hpp"
#include "npu/sim/runtime/tiling_probe_report.hpp"
#include "npu/validation_shapes.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr size_t runtime_diagnostic_lines = 40;
constexpr uint64_t expected_cache_bytes = 512ull << 20;
// Input sets shared with candidate processes (input_store.hpp): a few operators' worth.
constexpr uint64_t input_store_bytes = 512ull << 20;
// A probe delivers a few scalars and the tiling data (CANN caps it at 64 KiB; the shim's raw
// buffer is no larger).
constexpr size_t probe_delivery_limit = 1ull << 20;

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

// Bytes an honest delivery of `spec` stays below: outputs (and expected doubles) of every set
// plus `trace_bytes` for the traces.
size_t channel_limit(const sim::driver_spec& spec, uint64_t trace_bytes) {
  uint64_t per_set = 0;
  for (const auto& t : spec.op.outputs) per_set += t.numel() * sizeof(double);
  return static_cast<size_t>(per_set * spec.input_sets + trace_bytes);
}

// The wall-clock limit of a reference run, whatever the candidates' limit is.
constexpr double reference_wall_seconds = 300;

subprocess_options process_options(const sim_device_options& device, const eval_options& eval,
                                   const fs::path& scratch, std::vector<std::string> argv,
                                   size_t output_limit) {
  subprocess_options run;
  run.argv = std::move(argv);
  run.working_dir = scratch.string();
  run.inherit_environment = false;
  run.environment = sandboxed_process_environment();
  run.output_limit_bytes = output_limit;
  run.limits.wall_seconds = eval.timeout_seconds > 0 ? eval.timeout_seconds : 60;
  run.limits.cpu_seconds = device.cpu_seconds;
  run.limits.address_space_bytes = device.address_space_bytes;
  run.limits.file_size_bytes = device.file_size_bytes;
  run.limits.max_processes = device.max_processes;
  run.sandbox = device.sandbox;
  if (device.sandbox) run.sandbox_user = device.identity;
  run.redact = device.redact;
  return run;
}

// The process delivers on its standard output into a sealed memory file (subprocess.hpp) that
// the next reader maps, instead of a pipe the parent copies. The file-size limit, which the
// kernel applies to that file too, bounds it and leaves room for the whole channel.
void deliver_to_memory_file(subprocess_options& run) {
  run.stdout_to_memory_file = true;
  run.limits.file_size_bytes =
      std::max<uint64_t>(run.limits.file_size_bytes, run.output_limit_bytes + 1);
}

// Why a process's delivery is not there to read: its memory file could not be sealed
// (subprocess_result::stdout_file, whose notes say why).
std::string unkept_delivery(const char* whose, const subprocess_result& ran) {
  return std::string(whose) + " delivery could not be kept: " +
         (ran.notes.empty() ? std::string("no reason given") : ran.notes.back());
}

// What a candidate the sandbox caught was after, for the error message: its first attempt to
// write outside its scratch dir or to reach another process. Empty when there was none.
std::string sandbox_violation(const subprocess_result& ran, const fs::path& cache_dir) {
  if (!ran.exited && ran.term_signal == SIGSYS) {
    return "the sandbox killed the candidate for a system call it forbids: reaching another "
           "process (ptrace, process_vm_readv/writev or pidfd_getfd of its parent), or a way out "
           "(chmod/chown, utimensat, xattrs, mknod, io_uring) (SIGSYS)";
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

// One running candidate for as long as it lives, and the cores its input sets may use: the
// machine's share of this candidate among those running, at most one per set.
class run_slot {
 public:
  run_slot(std::atomic<uint32_t>& running, uint32_t cores, uint32_t sets) : running_(running) {
    if (cores == 0) cores = std::max(1u, std::thread::hardware_concurrency());
    const uint32_t with_this = running_.fetch_add(1) + 1;
    threads_ = std::clamp<uint32_t>(cores / with_this, 1, std::max(1u, sets));
  }
  run_slot(const run_slot&) = delete;
  run_slot& operator=(const run_slot&) = delete;
  ~run_slot() { running_.fetch_sub(1); }
  uint32_t threads() const { return threads_; }

 private:
  std::atomic<uint32_t>& running_;
  uint32_t threads_ = 1;
};

// What a child process receives: its input sets as 3, 4, ... (pass_fds keeps their order) and
// its spec after them.
struct run_descriptors {
  run_descriptors(std::vector<int> inputs, int spec)
      : passed(std::move(inputs)), spec_child_fd(3 + static_cast<int>(passed.size())) {
    passed.push_back(spec);
  }
  std::string spec_argument() const { return sim::spec_fd_argument(spec_child_fd); }

  std::vector<int> passed;
  int spec_child_fd;
};

// The spec a process reads, in a sealed memfd (never a file its scratch dir holds).
result<unique_fd> sealed_spec(const sim::driver_spec& spec) {
  const std::string text = nlohmann::json(spec).dump();
  return sealed_memfd("aopt-spec", {{text.data(), text.size()}});
}

// Whether the machine, not the candidate, left a run without a result: aopt's own state after the
// run (free space on the work dir's file system, descriptors), never the state of the scratch
// dir, which the candidate may have changed. A full disk is the candidate's doing when its
// scratch dir holds at least half of the space that went during the run. Empty: the candidate's.
std::string machine_failure(const fs::path& work_dir, const fs::path& scratch,
                            uint64_t free_before) {
  status usable = check_machine_usable(work_dir);
  if (usable.ok()) return {};
  if (usable.code() == status_code::resource_exhausted) {
    const uint64_t free_after = free_bytes(work_dir);
    const uint64_t gone = free_before > free_after ? free_before - free_after : 0;
    if (gone > 0 && directory_bytes(scratch) * 2 >= gone) return {};
  }
  return usable.message();
}

// Whether every directory from the root down to `dir` lets any user through (others' x bit).
bool searchable_by_others(const fs::path& dir) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  if (ec) return false;
  fs::path at;
  for (const fs::path& part : absolute) {
    at /= part;
    const fs::file_status st = fs::status(at, ec);
    if (ec || (st.permissions() & fs::perms::others_exec) == fs::perms::none) return false;
  }
  return true;
}

}  // namespace

sim_device::sim_device(sim::hw_profile profile, sim_device_options options)
    : profile_(std::move(profile)), options_(std::move(options)) {
  if (options_.work_dir.empty()) options_.work_dir = fs::temp_directory_path() / "aopt-sim";
  if (options_.cache_dir.empty()) options_.cache_dir = options_.work_dir / "objcache";
  // What runs killed before they could clean up left behind (their owner lock is free).
  scratch_dir::sweep(options_.work_dir);
  if (!options_.sandbox) options_.identity.reset();
  if (options_.identity) {
    // The sandboxed identity reaches its scratch dirs through the work dir (it lists nothing).
    std::error_code ec;
    fs::create_directories(options_.work_dir, ec);
    fs::permissions(options_.work_dir, fs::perms::owner_all | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    // A work dir or a toolchain inside a private directory (mode 0700) is out of its reach:
    // children keep aopt's identity then, confined by Landlock and the seccomp allow-list alone.
    const sim_toolchain& t = options_.toolchain;
    for (const fs::path& dir : {options_.work_dir, t.include_dir, t.pch_dir, t.lib_dir}) {
      if (!searchable_by_others(dir)) options_.identity.reset();
    }
  }
  checker_id_ = checker_identity(options_.toolchain, profile_);
  cache_ = std::make_unique<compile_cache>(options_.cache_dir, options_.cache_max_bytes);
  builder_ = std::make_unique<candidate_builder>(options_.toolchain, *cache_);
  shim_headers_ = shim_header_set(options_.toolchain.include_dir.string());
  ast_screen_ =
      std::make_unique<ast_screen>(options_.toolchain, options_.work_dir, options_.screen_limits);
  expected_ = std::make_unique<expected_cache>(expected_cache_bytes);
  inputs_ = std::make_unique<input_store>(input_store_bytes);
}

sim_device::~sim_device() = default;

std::optional<screen_finding> sim_device::screen_includes_of(
    const op_package& op, const std::string& tiling_source,
    const std::string* kernel_source) const {
  const screen_includes includes{op.spec.files.tiling_header, package_file_set(op), shim_headers_};
  if (auto found = screen_source(op.spec.files.host, tiling_source, includes)) return found;
  if (kernel_source) {
    if (auto found = screen_source(op.spec.files.kernel, *kernel_source, includes)) return found;
  }
  // The package's helper headers and split sources are compiled into the same units.
  for (const auto& [path, text] : op.other_files) {
    if (auto found = screen_source(path, text, includes)) return found;
  }
  return std::nullopt;
}

sim_device::running_screen sim_device::start_ast_screen(const op_package& op,
                                                        const std::string& tiling_source,
                                                        const std::string* kernel_source) const {
  running_screen screen;
  screen.verdict = std::async(
      std::launch::async, [this, &op, &tiling_source, kernel_source, stop = screen.stop_build] {
        std::optional<screen_finding> found = ast_screen_->screen(op, tiling_source, kernel_source);
        if (found && !found->unjudged) stop->cancel();
        return found;
      });
  return screen;
}

std::string sim_device::profile_id() const {
  // A profile run without compiler auto-sync judges kernels differently: its own cache entries.
  return "sim:" + profile_.name + (profile_.auto_sync ? "" : "+no-auto-sync");
}

result<sim_device::shared_input_sets> sim_device::share_inputs(const op_package& op, uint32_t sets,
                                                               sim::driver_spec& spec) {
  shared_input_sets shared;
  for (uint32_t set = 0; set < sets; ++set) {
    result<std::shared_ptr<const unique_fd>> fd = inputs_->find_or_draw(op.spec, set);
    if (!fd.ok()) return fd.error();
    // The child receives pass_fds as 3, 4, ... in order (base/subprocess.hpp).
    spec.input_fds.push_back(3 + static_cast<int>(set));
    shared.held.push_back(std::move(fd).value());
  }
  return shared;
}

std::vector<int> sim_device::shared_input_sets::descriptors() const {
  std::vector<int> fds;
  for (const auto& fd : held) fds.push_back(fd->get());
  return fds;
}

sim::driver_spec sim_device::driver_spec(const op_package& op, const eval_options& options) const {
  sim::driver_spec spec;
  spec.op = op.spec;
  spec.hw = profile_;
  spec.input_sets = options.input_sets;
  spec.repetitions = options.repetitions;
  spec.detect_races = options.detect_races;
  spec.noise_stddev_fraction = options.noise_stddev_fraction;
  spec.noise_seed = options.noise_seed;
  return spec;
}

std::string sim_device::expected_key(const op_package& op, const sim::driver_spec& spec) {
  // The expected outputs depend on the operator, its reference and the number of input sets only.
  return content_hash(
      {nlohmann::json(spec.op).dump(), op.reference_source, std::to_string(spec.input_sets)});
}

result<sim_device::built_reference> sim_device::build_reference(const op_package& op,
                                                                const eval_options& options) {
  auto scratch = scratch_dir::create(options_.work_dir, op.spec.name + "-reference-");
  if (!scratch.ok()) {
    return internal_error("the reference's scratch directory: " + scratch.error().message());
  }
  build_limits limits;
  limits.compile_timeout_seconds = options.compile_timeout_seconds;
  limits.address_space_bytes = options_.compiler_address_space_bytes;
  limits.parallel_compiles = 1;
  limits.redact = options_.redact;
  limits.identity = options_.identity;
  limits.reference_only = true;
  // The package's own sources: no text of a candidate enters the reference's directory.
  built_reference out{std::move(scratch).value(), {}};
  out.built = builder_->build(op, op.host_source, op.kernel_source, out.dir.path(), limits);
  return out;
}

sim_device::reference_outcome sim_device::run_reference(const op_package& op,
                                                        const sim::driver_spec& spec,
                                                        const eval_options& options,
                                                        const shared_input_sets& inputs,
                                                        const built_reference& reference_build) {
  reference_outcome out;
  const build_outcome& built = reference_build.built;
  if (built.result != build_outcome::kind::ok) {
    out.message = "building the reference failed: " + built.message;
    out.diagnostics = built.diagnostics;
    return out;
  }
  // The reference reads the sealed input sets the candidates read (none for a validation shape:
  // it draws them from the seed, as the store would).
  sim::driver_spec reference_spec = spec;
  if (inputs.held.empty()) reference_spec.input_fds.clear();
  result<unique_fd> spec_fd = sealed_spec(reference_spec);
  if (!spec_fd.ok()) {
    out.message = spec_fd.error().message();
    return out;
  }
  const run_descriptors fds{inputs.descriptors(), spec_fd->get()};
  subprocess_options run = process_options(
      options_, options, reference_build.dir.path(),
      {built.reference_executable.string(), fds.spec_argument(), std::to_string(spec.input_sets)},
      channel_limit(spec, options_.delivery_trace_bytes));
  // The run limit (device.timeout_s) bounds candidates; the reference is aopt's own judge and
  // runs before them, so a limit no kernel can meet must not make it fail in their place.
  run.limits.wall_seconds = std::max(run.limits.wall_seconds, reference_wall_seconds);
  run.pass_fds = fds.passed;
  deliver_to_memory_file(run);
  references_run_.fetch_add(1);
  auto reference = run_subprocess(run);
  if (reference.ok() && reference->succeeded() && !reference->stdout_file.valid()) {
    out.message = unkept_delivery("the reference's", *reference);
    return out;
  }
  if (!reference.ok() || !reference->succeeded()) {
    out.message = reference.ok() ? "the reference process failed (" + reference->describe() + ")"
                                 : "cannot run the reference: " + reference.error().message();
    out.diagnostics =
        output_lines(reference.ok() ? reference->stderr_text : "", runtime_diagnostic_lines);
    return out;
  }
  // Checked as it will be read, and kept as delivered, for the judge process: sealed once, read
  // by every judgement of the operator.
  try {
    const sim::read_mapping delivered(reference->stdout_file.get(), reference->stdout_file_bytes);
    // A reference that failed delivers its message, which the judge reports (reference_failed).
    sim::check_expected(delivered.view(), spec.op);
  } catch (const sim::malformed_delivery& e) {
    out.message = std::string("the reference's delivery is malformed: ") + e.what();
    return out;
  } catch (const std::runtime_error& e) {
    out.message = std::string("the reference's delivery cannot be read: ") + e.what();
    return out;
  }
  out.expected = std::make_shared<const unique_fd>(std::move(reference->stdout_file));
  expected_->put(expected_key(op, spec), out.expected, reference->stdout_file_bytes);
  return out;
}

sim_device::reference_outcome sim_device::expected_outputs_of(const op_package& op,
                                                              const sim::driver_spec& spec,
                                                              const eval_options& options,
                                                              const shared_input_sets& inputs) {
  reference_outcome out;
  if ((out.expected = expected_->find(expected_key(op, spec))) != nullptr) return out;
  result<built_reference> built = build_reference(op, options);
  if (!built.ok()) {
    out.message = built.error().message();
    return out;
  }
  return run_reference(op, spec, options, inputs, *built);
}

void sim_device::prepare_validation_shapes(const op_package& op, const eval_options& options) {
  // A validation-shaped package (with_shapes) keeps the list; its tuning package made them.
  for (const shape_set& shapes : op.spec.validation_shapes) {
    if (nlohmann::json(with_shapes(op, shapes).spec) == nlohmann::json(op.spec)) return;
  }
  const std::string key = content_hash(
      {nlohmann::json(op.spec).dump(), op.reference_source, std::to_string(options.input_sets)});
  {
    const std::lock_guard lock(prepared_mutex_);
    if (prepared_.count(key) != 0) return;
  }
  // The reference executable reads its shapes from its spec: built once for every shape.
  std::optional<built_reference> built;
  for (const shape_set& shapes : op.spec.validation_shapes) {
    const op_package shaped = with_shapes(op, shapes);
    sim::driver_spec spec = driver_spec(shaped, options);
    try {
      sim::check_settings(spec);
    } catch (const std::invalid_argument&) {
      continue;  // its own evaluation says why
    }
    if (expected_->find(expected_key(shaped, spec)) != nullptr) continue;
    if (!built) {
      result<built_reference> made = build_reference(op, options);
      if (!made.ok()) break;  // each shape's own evaluation reports it
      built.emplace(std::move(made).value());
    }
    // No shared sets: the reference keeps input set 0 drawn from the seed, the same bytes the
    // store draws when a candidate runs on this shape.
    run_reference(shaped, spec, options, shared_input_sets{}, *built);
  }
  const std::lock_guard lock(prepared_mutex_);
  prepared_.insert(key);
}

namespace {

// What the device remembers a lifted text that did not build under.
std::string unliftable_key(const op_package& op, const lifted_tiling& lifted) {
  return compile_cache::key_of({op.spec.name, lifted.source});
}

// Whether a lifted build's failure may be the lifting's: it changed the tiling program's text
// only, so a screen finding elsewhere, or a kernel unit that failed to compile without naming that
// file, fails the same way from the text as written. Building it again unlifted would only double
// the failure's cost (an exploding kernel paid its compile timeout twice) and give up the lifting
// of a tiling program that was never at fault.
bool lifting_may_have_failed(const op_package& op, const build_outcome& built,
                             const std::optional<screen_finding>& found) {
  if (found.has_value()) return found->file == op.spec.files.host || found->file == host_unit_file;
  if (built.result != build_outcome::kind::compile_error || built.error_kind == "compile_timeout")
    return false;
  if (built.error_kind != "compile" || built.failed_unit != kernel_unit_file) return true;
  return std::any_of(built.diagnostics.begin(), built.diagnostics.end(), [&](const std::string& d) {
    return d.find(op.spec.files.host) != std::string::npos;
  });
}

}  // namespace

std::optional<lifted_tiling> sim_device::lift_for_build(const op_package& op,
                                                        const std::string& tiling_source) {
  if (!options_.lift_tiling_constants) return std::nullopt;
  std::optional<lifted_tiling> lifted = lift_tiling_constants(tiling_source);
  if (!lifted) return std::nullopt;
  const std::lock_guard lock(unliftable_mutex_);
  if (unliftable_.find(unliftable_key(op, *lifted)) != nullptr) return std::nullopt;
  return lifted;
}

sim_device::screened_build sim_device::build_screened(
    const op_package& op, const std::string& tiling_source,
    const std::optional<lifted_tiling>& lifted, const std::string* kernel_source,
    const std::string& kernel_build, const fs::path& scratch, const build_limits& limits,
    running_screen screened) {
  screened_build out;
  const std::string& text = lifted ? lifted->source : tiling_source;
  build_limits stoppable = limits;
  stoppable.cancel = screened.stop_build.get();
  out.built = builder_->build(op, text, kernel_build, scratch, stoppable);
  out.found = screened.verdict.valid() ? screened.verdict.get() : std::nullopt;
  if (!lifted || !lifting_may_have_failed(op, out.built, out.found)) {
    if (lifted) out.lifted_assignment = sim::lifted_values_assignment(lifted->values);
    return out;
  }
  {
    const std::string key = unliftable_key(op, *lifted);
    const std::lock_guard lock(unliftable_mutex_);
    unliftable_.put(key, true, key.size());
  }
  screened = options_.static_screen ? start_ast_screen(op, tiling_source, kernel_source)
                                    : running_screen{};
  stoppable.cancel = screened.stop_build.get();
  const build_outcome first = std::move(out.built);
  out.built = builder_->build(op, tiling_source, kernel_build, scratch, stoppable);
  out.built.seconds += first.seconds;
  out.built.compile_seconds += first.compile_seconds;
  out.built.symbols_seconds += first.symbols_seconds;
  out.built.link_seconds += first.link_seconds;
  out.found = screened.verdict.valid() ? screened.verdict.get() : std::nullopt;
  return out;
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
    // What loading the package assumed that op.json did not say, on every result.
    r.warnings.insert(r.warnings.begin(), op.assumptions.begin(), op.assumptions.end());
    if (!r.ok() && options_.keep_scratch) {
      scratch->keep();
      r.diagnostics.push_back("scratch directory kept: " + scratch->path().string());
    }
    return r;
  };

  try {
    std::optional<lifted_tiling> lifted = lift_for_build(op, tiling_source);
    running_screen screened;
    if (options_.static_screen) {
      if (auto found = screen_includes_of(op, tiling_source, &kernel_source)) {
        fail(eval_status::compile_error, found->error_kind(), found->message());
        return finish();
      }
      screened = start_ast_screen(op, lifted ? lifted->source : tiling_source, &kernel_source);
    }
    sim::driver_spec spec = driver_spec(op, options);
    try {
      sim::check_settings(spec);
    } catch (const std::invalid_argument& e) {
      fail(eval_status::infra_error, "bad_spec", std::string("driver spec: ") + e.what());
      return finish();
    }
    auto phase_start = std::chrono::steady_clock::now();
    // Seconds since the last phase ended; starts the next one.
    auto phase_done = [&phase_start] {
      const auto now = std::chrono::steady_clock::now();
      const double seconds = std::chrono::duration<double>(now - phase_start).count();
      phase_start = now;
      return seconds;
    };
    result<shared_input_sets> inputs = share_inputs(op, spec.input_sets, spec);
    r.phases.inputs = phase_done();
    if (!inputs.ok()) {
      fail(eval_status::infra_error, "inputs", inputs.error().message());
      return finish();
    }
    build_limits limits;
    limits.compile_timeout_seconds = options.compile_timeout_seconds;
    limits.address_space_bytes = options_.compiler_address_space_bytes;
    limits.parallel_compiles = options_.parallel_compiles;
    limits.redact = options_.redact;
    limits.identity = options_.identity;
    limits.cold = options.cold;
    // The candidate builds while the reference makes the expected outputs: a build runs nothing
    // of the candidate's, and nothing it made runs before both are done. `waited` is how long the
    // verdict of the screen kept the build's result back.
    const std::shared_ptr<cancellation> stop_build = screened.stop_build;
    double waited = 0;
    std::future<screened_build> building = std::async(std::launch::async, [&] {
      const auto build_start = std::chrono::steady_clock::now();
      screened_build b = build_screened(op, tiling_source, lifted, &kernel_source, kernel_source,
                                        scratch->path(), limits, std::move(screened));
      const auto build_end = std::chrono::steady_clock::now();
      waited = std::chrono::duration<double>(build_end - build_start).count() - b.built.seconds;
      return b;
    });
    // Declared after `building`, so it runs first when the evaluation leaves without the build's
    // result (the reference failed, or its work threw): the future's destructor then waits for a
    // stopped build, not for a finished one.
    cancel_on_exit stop_unless_taken(*stop_build);
    // The expected outputs, from the reference in a process and directory of its own: no
    // candidate of this operator and shape has run when they are made (issue 30).
    reference_outcome reference = expected_outputs_of(op, spec, options, *inputs);
    if (reference.expected == nullptr) {
      r.phases.reference = phase_done();
      fail(eval_status::infra_error, "reference", reference.message);
      r.diagnostics = std::move(reference.diagnostics);
      return finish();
    }
    const std::shared_ptr<const unique_fd> expected = std::move(reference.expected);
    prepare_validation_shapes(op, options);
    r.phases.reference = phase_done();

    stop_unless_taken.release();
    screened_build screened_built = building.get();
    phase_done();
    const build_outcome& built = screened_built.built;
    const std::optional<screen_finding>& found = screened_built.found;
    r.compile_seconds = built.seconds;
    r.phases.compile = built.compile_seconds;
    r.phases.symbols = built.symbols_seconds;
    r.phases.link = built.link_seconds;
    r.phases.screen_wait = std::max(0.0, waited);
    if (found && !found->unjudged) {
      fail(eval_status::compile_error, found->error_kind(), found->message());
      if (built.result == build_outcome::kind::cancelled) {
        r.diagnostics.push_back(
            fmt::format("the build was stopped after {:.1f} s: the screen refused the code first",
                        built.seconds));
      }
      return finish();
    }
    if (built.result != build_outcome::kind::ok) {
      bool infra = built.result == build_outcome::kind::infra_error;
      fail(infra ? eval_status::infra_error : eval_status::compile_error,
           infra ? "toolchain" : built.error_kind, built.message);
      r.diagnostics = std::move(built.diagnostics);
      return finish();
    }
    // Code the screen could not parse, which the compiler accepted.
    if (found) {
      fail(eval_status::compile_error, found->error_kind(), found->message());
      return finish();
    }

    const run_slot slot(running_, options_.cores, spec.input_sets);
    sim::driver_spec run_spec = spec;
    run_spec.set_threads = slot.threads();
    result<unique_fd> spec_fd = sealed_spec(run_spec);
    if (!spec_fd.ok()) {
      fail(eval_status::infra_error, "spec", spec_fd.error().message());
      return finish();
    }
    // Whether the scratch dir can take the run is decided now, before the candidate has it.
    if (status usable = check_scratch_usable(scratch->path()); !usable.ok()) {
      fail(eval_status::infra_error, "scratch", usable.message());
      return finish();
    }
    const uint64_t free_before = free_bytes(options_.work_dir);

    const auto started = std::chrono::steady_clock::now();
    const size_t limit = channel_limit(spec, options_.delivery_trace_bytes);
    run_descriptors fds{inputs->descriptors(), spec_fd->get()};
    subprocess_options run =
        process_options(options_, options, scratch->path(),
                        {built.executable.string(), fds.spec_argument()}, limit);
    if (!screened_built.lifted_assignment.empty()) {
      run.environment.push_back(screened_built.lifted_assignment);
    }
    run.pass_fds = fds.passed;
    deliver_to_memory_file(run);
    auto ran = run_subprocess(run);
    if (!ran.ok()) {
      fail(eval_status::infra_error, "sandbox",
           "cannot run the candidate: " + ran.error().message());
      return finish();
    }
    r.run_seconds = ran->wall_seconds;
    r.phases.run = ran->wall_seconds;
    phase_done();
    std::vector<std::string> output = output_lines(ran->stderr_text, runtime_diagnostic_lines);
    auto failed_run = [&](eval_status status, const char* kind, std::string message) {
      fail(status, kind, std::move(message));
      r.diagnostics = std::move(output);
      return finish();
    };
    // A candidate caught reaching outside its sandbox is failed whatever it delivered.
    if (std::string violation = sandbox_violation(*ran, fs::weakly_canonical(options_.cache_dir));
        !violation.empty()) {
      for (const auto& denial : ran->denied_access) {
        output.push_back("sandbox refused " + denial.kind + ": " + denial.path);
      }
      return failed_run(eval_status::runtime_error, "sandbox_violation", violation);
    }

    if (ran->timed_out) {
      return failed_run(eval_status::timeout, "wall_clock",
                        fmt::format("the candidate ran longer than {:g} s and was killed",
                                    run.limits.wall_seconds));
    }
    if (!ran->exited && ran->term_signal == SIGXCPU) {
      return failed_run(eval_status::timeout, "cpu_time",
                        fmt::format("the candidate used more than {} s of CPU time and was killed",
                                    run.limits.cpu_seconds));
    }
    // No result: if the machine cannot hold a run (full disk, no descriptors), that is why.
    if (std::string machine = machine_failure(options_.work_dir, scratch->path(), free_before);
        !machine.empty()) {
      fail(eval_status::infra_error, "scratch",
           "the candidate left no result (" + ran->describe() + "): " + machine);
      return finish();
    }
    if (!ran->exited) {
      // The line after `marker` on the candidate's stderr, if it wrote one.
      const auto marked = [&](const std::string& marker) -> std::optional<std::string> {
        const size_t at = ran->stderr_text.rfind(marker);
        if (at == std::string::npos) return std::nullopt;
        const size_t end = ran->stderr_text.find('\n', at);
        return ran->stderr_text.substr(at + marker.size(), end == std::string::npos
                                                               ? std::string::npos
                                                               : end - at - marker.size());
      };
      // The kernel touched GM outside the traced API (gm_guard.hpp): work no trace prices.
      if (auto line = marked(sim::gm_guard_marker))
        return failed_run(eval_status::precision_error, "untraced_work", std::move(*line));
      // A crash inside the host tiling function names it (tiling_crash_guard.hpp).
      if (auto line = marked(sim::tiling_crash_marker))
        return failed_run(eval_status::runtime_error, "signal", std::move(*line));
      return failed_run(eval_status::runtime_error, "signal",
                        "the candidate was killed by " + signal_name(ran->term_signal));
    }
    if (ran->exit_code != 0) {
      return failed_run(eval_status::runtime_error, "crash",
                        fmt::format("the candidate exited with code {}", ran->exit_code));
    }
    // The candidate ended with exit code 0: only its delivery counts, never a claim of its own.
    if (!ran->stdout_file.valid()) {
      fail(eval_status::infra_error, "sandbox", unkept_delivery("the candidate's", *ran));
      return finish();
    }
    if (ran->stdout_file_bytes == 0) {
      return failed_run(
          eval_status::runtime_error, "no_delivery",
          "the candidate exited with code 0 without delivering its outputs and trace (an early "
          "exit from its own code: _exit/exit/atexit, a static constructor or destructor)");
    }
    if (ran->stdout_truncated) {
      return failed_run(eval_status::runtime_error, "malformed_delivery",
                        fmt::format("the candidate delivered more than {} bytes", limit));
    }
    // The judge runs in a process of its own, bounded (judge_process.hpp); it decodes too.
    auto judge_dir = scratch_dir::create(options_.work_dir, op.spec.name + "-judge-");
    if (!judge_dir.ok()) {
      fail(eval_status::infra_error, "scratch", judge_dir.error().message());
      return finish();
    }
    judge_request request;
    request.spec = &spec;
    request.delivery_fd = ran->stdout_file.get();
    request.expected_fd = expected->get();
    request.first_inputs_fd = inputs->held.front()->get();
    request.check_threads = slot.threads();
    judge_limits bounds;
    bounds.cpu_seconds = options_.judge_cpu_seconds;
    bounds.address_space_bytes = options_.judge_address_space_bytes;
    bounds.wall_seconds = 4.0 * static_cast<double>(options_.judge_cpu_seconds) + 10;
    judge_cost cost;
    eval_result judged =
        judge_in_child(options_.toolchain.judge, request, bounds,
                       process_options(options_, options, judge_dir->path(), {}, 0), &cost);
    {
      const std::lock_guard lock(judge_cost_mutex_);
      peak_judge_cost_.cpu_seconds = std::max(peak_judge_cost_.cpu_seconds, cost.cpu_seconds);
      peak_judge_cost_.max_rss_bytes = std::max(peak_judge_cost_.max_rss_bytes, cost.max_rss_bytes);
    }
    const double judge_wall = phase_done();
    r.phases.decode = std::max(0.0, judge_wall - judged.phases.check - judged.phases.timing);
    // The judge timed its own two phases.
    r.phases.check = judged.phases.check;
    r.phases.timing = judged.phases.timing;
    judged.phases = r.phases;
    judged.device = r.device;
    judged.device_profile = r.device_profile;
    judged.latency_is_simulated = true;
    judged.compile_seconds = r.compile_seconds;
    // Running and the checker's judgement.
    judged.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    judged.from_cache = false;
    r = std::move(judged);
    return finish();
  } catch (const std::exception& e) {
    fail(eval_status::infra_error, "internal", std::string("sim_device: ") + e.what());
    return finish();
  }
}

tiling_probe_result sim_device::probe_tiling(const op_package& op,
                                             const std::string& tiling_source) {
  tiling_probe_result r;
  auto finish = [&](tiling_probe_result::kind kind, std::string error_kind, std::string message) {
    r.result = kind;
    r.error_kind = std::move(error_kind);
    r.message = std::move(message);
    return r;
  };
  using kind = tiling_probe_result::kind;
  const auto started = std::chrono::steady_clock::now();
  auto scratch = scratch_dir::create(options_.work_dir, op.spec.name + "-probe-");
  if (!scratch.ok()) return finish(kind::unavailable, "scratch", scratch.error().message());
  try {
    std::optional<lifted_tiling> lifted = lift_for_build(op, tiling_source);
    running_screen screened;
    if (options_.static_screen) {
      if (auto found = screen_includes_of(op, tiling_source, nullptr))
        return finish(kind::compile_error, found->error_kind(), found->message());
      screened = start_ast_screen(op, lifted ? lifted->source : tiling_source, nullptr);
    }
    const eval_options defaults;
    build_limits limits;
    limits.compile_timeout_seconds = options_.probe_compile_timeout_seconds;
    limits.address_space_bytes = options_.compiler_address_space_bytes;
    limits.parallel_compiles = 1;
    limits.redact = options_.redact;
    limits.identity = options_.identity;
    limits.probe_only = true;
    screened_build screened_built =
        build_screened(op, tiling_source, lifted, nullptr, op.kernel_source, scratch->path(),
                       limits, std::move(screened));
    const build_outcome& built = screened_built.built;
    const std::optional<screen_finding>& found = screened_built.found;
    if (found && !found->unjudged)
      return finish(kind::compile_error, found->error_kind(), found->message());
    if (built.result != build_outcome::kind::ok) {
      return built.result == build_outcome::kind::infra_error
                 ? finish(kind::unavailable, "toolchain", built.message)
                 : finish(kind::compile_error, built.error_kind, built.message);
    }
    if (found) return finish(kind::compile_error, found->error_kind(), found->message());
    sim::driver_spec spec = driver_spec(op, defaults);
    result<shared_input_sets> inputs = share_inputs(op, 1, spec);
    if (!inputs.ok()) return finish(kind::unavailable, "inputs", inputs.error().message());
    result<unique_fd> spec_fd = sealed_spec(spec);
    if (!spec_fd.ok()) return finish(kind::unavailable, "spec", spec_fd.error().message());
    if (status usable = check_scratch_usable(scratch->path()); !usable.ok())
      return finish(kind::unavailable, "scratch", usable.message());
    const uint64_t free_before = free_bytes(options_.work_dir);
    eval_options run_limits;
    run_limits.timeout_seconds = defaults.compile_timeout_seconds;
    run_descriptors fds{inputs->descriptors(), spec_fd->get()};
    subprocess_options run = process_options(options_, run_limits, scratch->path(),
                                             {built.probe_executable.string(), fds.spec_argument()},
                                             probe_delivery_limit);
    if (!screened_built.lifted_assignment.empty()) {
      run.environment.push_back(screened_built.lifted_assignment);
    }
    run.pass_fds = fds.passed;
    auto ran = run_subprocess(run);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!ran.ok()) return finish(kind::unavailable, "sandbox", ran.error().message());
    if (ran->timed_out) {
      return finish(
          kind::crashed, "wall_clock",
          fmt::format("the tiling function ran longer than {:g} s", run_limits.timeout_seconds));
    }
    if (std::string machine = machine_failure(options_.work_dir, scratch->path(), free_before);
        !machine.empty())
      return finish(kind::unavailable, "scratch", machine);
    if (!ran->succeeded() || ran->stdout_truncated) {
      return finish(kind::crashed, ran->exited ? "crash" : "signal",
                    "the tiling probe failed (" + ran->describe() + ")");
    }
    sim::tiling_call call;
    try {
      call = sim::decode_tiling_probe(ran->stdout_text);
    } catch (const sim::malformed_delivery& e) {
      return finish(kind::crashed, "malformed_delivery",
                    std::string("the tiling probe's delivery is malformed: ") + e.what());
    }
    r.exception = std::move(call.exception);
    r.status = call.status;
    r.block_dim = call.block_dim;
    r.tiling_key = call.tiling_key;
    r.workspace_bytes = call.workspace_bytes;
    r.data_size = call.data_size;
    r.tiling_data = std::move(call.data);
    return finish(kind::ran, {}, {});
  } catch (const std::exception& e) {
    return finish(kind::unavailable, "internal", std::string("sim_device probe: ") + e.what());
  }
}

}  // namespace aopt::npu
