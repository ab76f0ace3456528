#include "npu/cann/cann_device.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/content_hash.hpp"
#include "base/scratch_dir.hpp"
#include "npu/cann/cann_command.hpp"
#include "npu/cann/msprof_reader.hpp"
#include "npu/cann/reference_runner.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr double version_timeout_seconds = 20;

std::string kernel_name_of(const op_spec& spec) {
  return spec.kernel_entry.empty() ? spec.name : spec.kernel_entry;
}

status write_text(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) return internal_error("cannot write " + path.string());
  return {};
}

result<std::vector<uint8_t>> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path.string());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// The first non-empty line of a version command's output, trimmed; "unknown" when it fails.
std::string first_line_or_unknown(const std::string& tmpl, const command_values& values,
                                  const std::string& cwd) {
  if (tmpl.empty()) return "unknown";
  command_outcome out =
      run_command(command_step::version, tmpl, values, cwd, version_timeout_seconds);
  if (!out.ok) {
    spdlog::warn("cann: version command '{}' failed: {}", tmpl, out.message);
    return "unknown";
  }
  std::istringstream in(out.stdout_text);
  for (std::string line; std::getline(in, line);) {
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t\r");
    return line.substr(b, e - b + 1);
  }
  return "unknown";
}

void fill_latency(const latency_summary& s, eval_result& r) {
  r.latency_us = s.median_us;
  r.latency.median_us = s.median_us;
  r.latency.min_us = s.min_us;
  r.latency.max_us = s.max_us;
  r.latency.repetitions = s.n;
  double mean = 0;
  for (const auto& x : s.samples) mean += x.latency_us;
  mean /= std::max<size_t>(1, s.samples.size());
  double var = 0;
  for (const auto& x : s.samples) var += (x.latency_us - mean) * (x.latency_us - mean);
  r.latency.stddev_us = s.samples.size() > 1 ? std::sqrt(var / (s.samples.size() - 1)) : 0;
  measurement_stats& m = r.measurement;
  m.measured = true;
  m.median_us = s.median_us;
  m.q1_us = s.q1_us;
  m.q3_us = s.q3_us;
  m.iqr_us = s.iqr_us;
  m.n = s.n;
  if (!s.samples.empty()) {
    const sample_context& c = s.samples.back().context;
    m.device_id = c.device_id;
    m.cann_version = c.cann_version;
    m.driver_version = c.driver_version;
    m.clock_mhz = c.clock_mhz;
  }
}

void fill_profile(const msprof_metrics& m, eval_result& r) {
  eval_profile& p = r.profile;
  p.block_dim = m.block_dim;
  if (m.has_pipes) {
    p.scalar = m.scalar;
    p.vector = m.vector;
    p.mte2 = m.mte2;
    p.mte3 = m.mte3;
    p.core_time_max_us = m.aiv_time_us;
  }
  if (m.has_memory) {
    p.gm_read_bytes = m.gm_read_bytes;
    p.gm_write_bytes = m.gm_write_bytes;
  }
}

}  // namespace

// A built, installed and checked candidate with its work_dir.
struct cann_device::measured_candidate {
  std::optional<scratch_dir> dir;
  command_values values;
};

struct cann_device::op_state {
  std::mutex mutex;  // one timing phase of this operator at a time
  std::shared_ptr<measured_candidate> best;
  std::shared_ptr<measured_candidate> baseline;
  std::map<std::string, std::unique_ptr<measurement_protocol>> protocols;  // per NPU
};

// Holds one NPU of device_ids for the scope.
class cann_device::npu_lease {
 public:
  explicit npu_lease(cann_device& d) : device_(d), id_(d.acquire_npu()) {}
  ~npu_lease() { device_.release_npu(id_); }
  npu_lease(const npu_lease&) = delete;
  npu_lease& operator=(const npu_lease&) = delete;
  const std::string& id() const { return id_; }

 private:
  cann_device& device_;
  std::string id_;
};

// One sample = one `profile` run of a candidate on the NPU of `context`, read back from
// msprof's files. The candidate may have been built and checked on another NPU.
class cann_device::profile_target : public measurement_target {
 public:
  profile_target(const measured_candidate& c, const cann_commands& commands, sample_context context,
                 double timeout_seconds)
      : candidate_(c),
        values_(c.values),
        commands_(commands),
        context_(std::move(context)),
        timeout_seconds_(timeout_seconds) {
    values_.device_id = context_.device_id;
  }

  result<latency_sample> sample() override {
    const fs::path work = candidate_.dir->path();
    const fs::path prof = work / "prof";
    std::error_code ec;
    // A stale OPPROF_* of an earlier sample must never stand in for this one.
    fs::remove_all(prof, ec);
    fs::create_directories(prof, ec);
    command_outcome out = run_command(command_step::profile, commands_.profile, values_,
                                      work.string(), timeout_seconds_);
    if (!out.ok) {
      failure = out;
      return internal_error(out.message);
    }
    auto m = read_profiler_output(prof, candidate_.values.kernel_name);
    if (!m.ok()) return m.error().with_context("after the profile command");
    latency_sample s;
    s.latency_us = m->task_duration_us;
    s.context = context_;
    if (!m->device_id.empty()) s.context.device_id = m->device_id;
    if (m->current_freq_mhz > 0) s.context.clock_mhz = m->current_freq_mhz;
    last = std::move(*m);
    return s;
  }

  msprof_metrics last;
  std::optional<command_outcome> failure;  // the profile command's, when a sample failed

 private:
  const measured_candidate& candidate_;
  command_values values_;
  const cann_commands& commands_;
  sample_context context_;
  double timeout_seconds_;
};

result<std::shared_ptr<cann_device>> cann_device::create(cann_device_options options) {
  if (options.device_ids.empty()) return invalid_argument("cann.device_ids: no NPU to use");
  status valid = validate(options.protocol);
  if (!valid.ok()) return valid.with_context("cann");
  if (options.commands.build.empty() || options.commands.run.empty() ||
      options.commands.profile.empty()) {
    return invalid_argument("cann: the build, run and profile commands must be set");
  }
  return std::shared_ptr<cann_device>(new cann_device(std::move(options)));
}

cann_device::cann_device(cann_device_options options) : options_(std::move(options)) {
  if (options_.work_dir.empty()) options_.work_dir = fs::temp_directory_path() / "aopt-cann";
  if (options_.cache_dir.empty()) options_.cache_dir = options_.work_dir / "cache";
  reference_ = std::make_unique<reference_runner>(options_.toolchain, options_.cache_dir);
  npu_busy_.assign(options_.device_ids.size(), false);
  if (!options_.drift) options_.drift = std::make_shared<drift_board>();
}

cann_device::~cann_device() = default;

std::string cann_device::profile_id() const {
  return "cann:" + options_.profile_name;
}

std::string cann_device::acquire_npu() {
  std::unique_lock<std::mutex> lock(npu_mutex_);
  for (;;) {
    for (size_t i = 0; i < npu_busy_.size(); ++i) {
      if (!npu_busy_[i]) {
        npu_busy_[i] = true;
        return options_.device_ids[i];
      }
    }
    npu_freed_.wait(lock);
  }
}

void cann_device::release_npu(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(npu_mutex_);
    for (size_t i = 0; i < npu_busy_.size(); ++i) {
      if (options_.device_ids[i] == id) npu_busy_[i] = false;
    }
  }
  npu_freed_.notify_one();
}

std::shared_ptr<cann_device::op_state> cann_device::state_of(const op_package& op) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  auto& s = ops_[op.spec.name + "@" + op.dir.string()];
  if (!s) s = std::make_shared<op_state>();
  return s;
}

sample_context cann_device::context_for(const std::string& device_id) {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!versions_.empty()) {
      return {device_id, versions_["cann"], versions_["driver"], 0};
    }
  }
  command_values values;
  values.device_id = device_id;
  const std::string cwd = options_.work_dir.string();
  std::string cann = first_line_or_unknown(options_.commands.cann_version, values, cwd);
  std::string driver = first_line_or_unknown(options_.commands.driver_version, values, cwd);
  std::lock_guard<std::mutex> lock(state_mutex_);
  versions_["cann"] = cann;
  versions_["driver"] = driver;
  return {device_id, cann, driver, 0};
}

void cann_device::measure(const op_package& op, measured_candidate& candidate,
                          const std::string& npu, const eval_options& options, bool finalist,
                          eval_result& r) {
  auto state = state_of(op);
  std::lock_guard<std::mutex> lock(state->mutex);
  auto& protocol = state->protocols[npu];
  if (!protocol) {
    auto flush = [this, npu]() -> status {
      if (options_.commands.flush.empty()) return {};
      command_values values;
      values.device_id = npu;
      values.flush_bytes = std::to_string(options_.flush_bytes);
      command_outcome out = run_command(command_step::flush, options_.commands.flush, values,
                                        options_.work_dir.string(), version_timeout_seconds);
      // unavailable: tells fail() below that the flush, not a profile, failed.
      return out.ok ? status{} : unavailable(out.message);
    };
    protocol = std::make_unique<measurement_protocol>(options_.protocol, flush);
  }
  const sample_context context = context_for(npu);
  const double timeout = options.timeout_seconds > 0 ? options.timeout_seconds : 60;
  profile_target target(candidate, options_.commands, context, timeout);
  // The candidate's own profile command decides the status (a hang is its runtime_error); a
  // failing flush, a profile of the best or baseline, or unreadable profiler output are the
  // machine's (infra_error).
  auto fail = [&](const status& s) {
    r.status = eval_status::infra_error;
    r.error_kind = s.code() == status_code::unavailable ? "flush_failed" : "profile";
    r.message = s.message();
    if (target.failure) {
      r.status = target.failure->status;
      r.error_kind = target.failure->error_kind;
      r.diagnostics = target.failure->diagnostics;
    }
  };
  auto take_candidate = [&]() {
    auto owned = std::make_shared<measured_candidate>();
    owned->dir = std::move(candidate.dir);
    owned->values = candidate.values;
    return owned;
  };

  if (finalist) {
    // The end-of-campaign re-measurement: alone, with the finalist sample count.
    auto m = protocol->measure(target, true);
    if (!m.ok()) return fail(m.error());
    fill_latency(*m, r);
    fill_profile(target.last, r);
    r.status = eval_status::ok;
    return;
  }
  if (!state->best) {
    // The operator's first candidate: its baseline, and the reference of the drift check.
    auto first = protocol->check_baseline(target);
    if (!first.ok()) return fail(first.error());
    fill_latency(first->summary, r);
    fill_profile(target.last, r);
    r.status = eval_status::ok;
    state->best = state->baseline = take_candidate();
    return;
  }

  profile_target best(*state->best, options_.commands, context, timeout);
  auto e = protocol->compare(target, best);
  if (!e.ok()) return fail(e.error());
  fill_latency(e->candidate, r);
  fill_profile(target.last, r);
  r.status = eval_status::ok;
  r.measurement.verdict = e->accepted ? "faster" : "not_faster";
  r.measurement.speedup = e->speedup;
  r.measurement.speedup_ci_low = e->ci_low;
  r.measurement.speedup_ci_high = e->ci_high;
  r.measurement.pairs = e->pairs;
  if (e->accepted) {
    // A new best is a finalist: its reported latency deserves more samples.
    auto finalist = protocol->measure(target, true);
    if (!finalist.ok()) return fail(finalist.error());
    const measurement_stats comparison = r.measurement;
    fill_latency(*finalist, r);
    r.measurement.verdict = comparison.verdict;
    state->best = take_candidate();
  }
  if (protocol->baseline_due()) {
    profile_target baseline(*state->baseline, options_.commands, context, timeout);
    auto d = protocol->check_baseline(baseline);
    if (!d.ok()) {
      spdlog::warn("cann: re-measuring the baseline of {} on NPU {} failed: {}", op.spec.name, npu,
                   d.error().message());
    } else {
      if (d->alarm) {
        spdlog::warn(
            "cann: DRIFT ALARM: the baseline of {} on NPU {} now takes {:.3f} us, {:.1f} % from "
            "its first {:.3f} us (threshold {:.1f} %): timings of this period are suspect",
            op.spec.name, npu, d->current_us, (d->ratio - 1) * 100, d->reference_us,
            options_.protocol.drift_threshold * 100);
      }
      options_.drift->publish({op.spec.name, npu, d->ratio, d->alarm});
    }
  }
}

void cann_device::record(const op_package& op, const std::string& tiling_source,
                         const std::string& kernel_source, const eval_result& r) {
  if (!options_.log || !r.ok() || !r.measurement.measured) return;
  measurement_record rec;
  rec.op = op.spec.name;
  rec.device_profile = options_.profile_name;
  rec.candidate = content_hash({tiling_source, kernel_source}).substr(0, 16);
  rec.measured = r.measurement;
  status s = options_.log->append(rec);
  if (!s.ok()) spdlog::warn("cann: {}", s.message());
}

eval_result cann_device::evaluate(const op_package& op, const std::string& tiling_source,
                                  const std::string& kernel_source, const eval_options& options) {
  return evaluate_candidate(op, tiling_source, kernel_source, options, false);
}

std::optional<eval_result> cann_device::remeasure(const op_package& op,
                                                  const std::string& tiling_source,
                                                  const std::string& kernel_source,
                                                  const eval_options& options) {
  return evaluate_candidate(op, tiling_source, kernel_source, options, true);
}

eval_result cann_device::evaluate_candidate(const op_package& op, const std::string& tiling_source,
                                            const std::string& kernel_source,
                                            const eval_options& options, bool finalist) {
  eval_result r;
  r.device = "cann";
  r.device_profile = options_.profile_name;
  r.latency_is_simulated = false;
  auto from = [&](const command_outcome& out) {
    r.status = out.status;
    r.error_kind = out.error_kind;
    r.message = out.message;
    r.diagnostics = out.diagnostics;
  };
  auto fail = [&](eval_status status, std::string kind, std::string message) {
    r.status = status;
    r.error_kind = std::move(kind);
    r.message = std::move(message);
  };

  auto scratch = scratch_dir::create(options_.work_dir, op.spec.name + "-");
  if (!scratch.ok()) {
    fail(eval_status::infra_error, "scratch", scratch.error().message());
    return r;
  }
  measured_candidate candidate;
  candidate.dir.emplace(std::move(*scratch));
  const fs::path work = candidate.dir->path();
  auto finish = [&]() -> eval_result {
    if (!r.ok() && options_.keep_scratch && candidate.dir) {
      candidate.dir->keep();
      r.diagnostics.push_back("work directory kept: " + work.string());
    }
    return r;
  };

  try {
    const fs::path op_dir = work / "op";
    std::error_code ec;
    fs::copy(op.dir, op_dir, fs::copy_options::recursive, ec);
    if (ec) {
      fail(eval_status::infra_error, "scratch",
           "cannot copy the operator package " + op.dir.string() + ": " + ec.message());
      return finish();
    }
    status wrote = write_text(op_dir / op.spec.files.host, tiling_source);
    if (wrote.ok()) wrote = write_text(op_dir / op.spec.files.kernel, kernel_source);
    if (!wrote.ok()) {
      fail(eval_status::infra_error, "scratch", wrote.message());
      return finish();
    }
    candidate.values = {op_dir.string(), work.string(), kernel_name_of(op.spec), "",
                        std::to_string(options_.flush_bytes)};

    command_outcome built =
        run_command(command_step::build, options_.commands.build, candidate.values, work.string(),
                    options.compile_timeout_seconds);
    r.compile_seconds = built.seconds;
    if (!built.ok) {
      from(built);
      return finish();
    }
    if (!options_.commands.install.empty()) {
      command_outcome installed =
          run_command(command_step::install, options_.commands.install, candidate.values,
                      work.string(), options.compile_timeout_seconds);
      r.compile_seconds += installed.seconds;
      if (!installed.ok) {
        from(installed);
        return finish();
      }
    }

    npu_lease npu(*this);
    candidate.values.device_id = npu.id();
    const double timeout = options.timeout_seconds > 0 ? options.timeout_seconds : 60;
    for (uint32_t k = 0; k < std::max<uint32_t>(1, options.input_sets); ++k) {
      const input_set set = make_input_set(op.spec, k);
      const std::string where = fmt::format("input set {} (seed {}): ", k, set.seed);
      status inputs = write_input_files(op.spec, set, work / "input");
      fs::remove_all(work / "output", ec);
      fs::create_directories(work / "output", ec);
      if (!inputs.ok() || ec) {
        fail(eval_status::infra_error, "scratch",
             inputs.ok() ? "cannot create " + (work / "output").string() : inputs.message());
        return finish();
      }
      command_outcome ran = run_command(command_step::run, options_.commands.run, candidate.values,
                                        work.string(), timeout);
      r.run_seconds += ran.seconds;
      if (!ran.ok) {
        from(ran);
        r.message = where + r.message;
        return finish();
      }
      auto expected = reference_->expected(op, set, work, timeout);
      if (!expected.ok()) {
        fail(eval_status::infra_error, "reference", expected.error().message());
        return finish();
      }
      for (size_t i = 0; i < op.spec.outputs.size(); ++i) {
        const tensor_spec& t = op.spec.outputs[i];
        auto actual = read_bytes(work / "output" / (t.name + ".bin"));
        if (!actual.ok()) {
          fail(eval_status::runtime_error, "missing_output",
               where + "the run command wrote no output/" + t.name + ".bin");
          return finish();
        }
        if (actual->size() != t.bytes()) {
          fail(eval_status::runtime_error, "output_size",
               fmt::format("{}output/{}.bin has {} bytes, {} {} elements take {}", where, t.name,
                           actual->size(), t.numel(), to_string(t.type), t.bytes()));
          return finish();
        }
        output_check check = compare_output_bytes(op.spec, i, *actual, (*expected)[i], k);
        if (!check.ok) {
          fail(eval_status::precision_error, check.kind, where + check.message);
          return finish();
        }
      }
    }
    measure(op, candidate, npu.id(), options, finalist, r);
    record(op, tiling_source, kernel_source, r);
    return finish();
  } catch (const std::exception& e) {
    fail(eval_status::infra_error, "internal", std::string("cann_device: ") + e.what());
    return finish();
  }
}

}  // namespace aopt::npu
