#include "driver_judge.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core_context.hpp"
#include "core_units.hpp"
#include "driver_failure.hpp"
#include "driver_trace_check.hpp"
#include "gm_cross_core_race.hpp"
#include "gm_read_check.hpp"
#include "hazard_detector.hpp"
#include "roofline.hpp"
#include "tensor_check.hpp"
#include "timing_model.hpp"
#include "timing_sensitivity.hpp"
#include "waiting_launch.hpp"

namespace aopt::sim {
namespace {

constexpr size_t max_candidate_diagnostics = 20;

// The judge's own work on a delivery is bounded before it starts: a delivery claiming more work
// than this (trace records, UB bytes its replays walk, output bytes its writes carry) fails as
// the candidate's `judge_limit`. The unit is about what the slowest pass (the dataflow replay,
// eight UB bytes a unit) does in a few nanoseconds, so the limit is some tens of seconds of
// aopt's CPU; the largest honest evaluation in the corpus and tests needs well under 1 % of it
// (bench_sim_speed reports the figure per evaluation).
constexpr uint64_t max_judge_work = uint64_t{4} << 30;

uint64_t judge_work(const run_report& report) {
  uint64_t work = 0;
  for (const set_report& s : report.sets) {
    for (const auto& o : s.outputs) work += o.size() / 8;
    for (const core_trace& t : s.traces) {
      work += t.instructions.size();
      for (const instruction& in : t.instructions) {
        work += in.deps.size() + in.auto_deps.size();
        for (const auto* ranges : {&in.reads, &in.writes}) {
          for (const ub_range& r : *ranges) {
            work += 1 + (r.end > r.begin ? (r.end - r.begin) / 8 : 0);
          }
        }
      }
      for (const gm_write& w : t.gm_writes) work += 1 + w.data.size() / 8;
      for (const gm_read& r : t.gm_reads) work += 1 + uint64_t{r.burst_bytes} * r.bursts / 8;
    }
  }
  return work;
}
constexpr size_t max_diagnostic_chars = 400;

struct timing_outcome {
  npu::eval_profile profile;
  npu::roofline roof;
  npu::latency_stats latency;
  double raw_latency_us = 0;
  std::string roof_summary;
};

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

npu::pipe_busy pipe_of(const core_timing& core, pipe p, const hw_profile& hw) {
  const double busy = core.busy_cycles[static_cast<int>(p)];
  return {hw.cycles_to_us(busy), core.total_cycles > 0 ? busy / core.total_cycles : 0.0};
}

timing_outcome time_kernel(const driver_spec& spec, const std::vector<core_trace>& traces) {
  const hw_profile& hw = spec.hw;
  const auto block_dim = static_cast<uint32_t>(traces.size());
  const std::vector<core_timing> cores = replay_cores(traces, hw, block_dim);
  const kernel_timing kt = combine_cores(cores, traces, hw);

  const core_timing& critical = cores.at(kt.critical_core);
  timing_outcome out;
  npu::eval_profile& p = out.profile;
  uint64_t dma_bytes = 0;
  for (size_t i = 0; i < cores.size(); ++i) {
    if (i == 0 || traces[i].ub_high_water_bytes > p.ub_high_water_bytes) {
      p.ub_allocations.clear();
      for (const ub_carve& c : traces[i].ub_carves) {
        p.ub_allocations.push_back({c.line, c.buffers, c.bytes_each});
      }
    }
    p.ub_high_water_bytes = std::max(p.ub_high_water_bytes, traces[i].ub_high_water_bytes);
    p.gm_read_bytes += traces[i].gm_read_bytes;
    p.gm_write_bytes += traces[i].gm_write_bytes;
    p.trace_instructions += traces[i].instructions.size();
    p.dma_bursts += cores[i].dma_bursts;
    dma_bytes += cores[i].dma_bytes;
    p.scalar_accesses += cores[i].scalar_accesses;
    p.vector_instructions += cores[i].vector_instructions;
  }

  out.raw_latency_us = kt.latency_us;
  std::vector<double> samples(spec.repetitions, kt.latency_us);
  if (spec.noise_stddev_fraction > 0) {
    std::mt19937_64 rng(spec.noise_seed);
    std::normal_distribution<double> noise(0.0, spec.noise_stddev_fraction);
    // A draw below -95% would make a latency near zero or negative: not a measurement.
    for (double& s : samples) s = kt.latency_us * std::max(0.05, 1.0 + noise(rng));
  }
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= static_cast<double>(samples.size());
  double variance = 0;
  for (double s : samples) variance += (s - mean) * (s - mean);
  variance /= static_cast<double>(samples.size());
  out.latency.median_us = median_of(samples);
  out.latency.min_us = *std::min_element(samples.begin(), samples.end());
  out.latency.max_us = *std::max_element(samples.begin(), samples.end());
  out.latency.stddev_us = std::sqrt(variance);
  out.latency.repetitions = static_cast<uint32_t>(samples.size());

  p.scalar = pipe_of(critical, pipe::s, hw);
  p.vector = pipe_of(critical, pipe::v, hw);
  p.mte2 = pipe_of(critical, pipe::mte2, hw);
  p.mte3 = pipe_of(critical, pipe::mte3, hw);
  p.mte1 = pipe_of(critical, pipe::mte1, hw);
  p.cube = pipe_of(critical, pipe::m, hw);
  p.fixpipe = pipe_of(critical, pipe::fix, hw);
  p.block_dim = block_dim;
  p.ub_capacity_bytes = hw.ub_bytes;
  p.mean_burst_bytes =
      p.dma_bursts > 0 ? static_cast<double>(dma_bytes) / static_cast<double>(p.dma_bursts) : 0.0;
  p.barrier_stall_us = hw.cycles_to_us(critical.barrier_stall_cycles);
  p.flag_wait_us = hw.cycles_to_us(critical.flag_wait_cycles);
  p.auto_sync_wait_us = hw.cycles_to_us(critical.auto_sync_wait_cycles);
  p.waves = kt.waves;
  p.launch_overhead_us = kt.launch_overhead_us;
  p.core_time_max_us = kt.core_time_max_us;
  p.core_time_mean_us = kt.core_time_mean_us;
  // The features of `aopt calibrate` (timing_sensitivity.hpp): a few replays of the critical
  // block.
  for (const auto& [name, slope] : latency_sensitivities(traces, cores, kt, hw)) {
    p.latency_sensitivity[name] = slope;
  }

  // The operator's bound, never the trace's (roofline.hpp): the same for every candidate.
  out.roof = compute_roofline(spec.op, out.latency.median_us, hw);
  out.roof_summary = "roofline bound " + format_value(out.roof.bound_us) + " us (memory " +
                     format_value(out.roof.memory_bound_us) + " us, vector " +
                     format_value(out.roof.vector_bound_us) + " us" +
                     (out.roof.compute_bound_us > 0
                          ? ", compute " + format_value(out.roof.compute_bound_us) + " us"
                          : std::string()) +
                     ")";
  return out;
}

// The candidate's own failure: believed (it can only hurt itself) but never as more than a
// runtime or precision error.
void candidate_failure(const set_report& s) {
  const bool known = s.failed_status == "runtime_error" || s.failed_status == "precision_error";
  fail(known ? s.failed_status : "runtime_error",
       s.failed_kind.empty() ? "candidate" : s.failed_kind, s.message);
}

void check_tiling(const set_report& s) {
  if (s.block_dim == 0 || s.block_dim > max_block_dim) {
    fail("runtime_error", "bad_block_dim",
         "blockDim " + std::to_string(s.block_dim) + " is outside 1.." +
             std::to_string(max_block_dim));
  }
  if (s.workspace_bytes > max_workspace_bytes) {
    fail("runtime_error", "bad_workspace",
         "workspace of " + std::to_string(s.workspace_bytes) + " bytes exceeds 1 GiB");
  }
}

// What a package whose kernel updates an input on purpose declares (op_spec.hpp).
constexpr char input_update_hint[] =
    "; if the operator updates it on purpose, op.json declares the input \"scratch\": true, or "
    "an output \"inplace\": \"<input>\"";

void check_set(const driver_spec& spec, const run_report& report, const expected_outputs& expected,
               uint32_t set, std::vector<std::string>& warnings) {
  const npu::op_spec& op = spec.op;
  const set_report& s = report.sets[set];
  const expected_set& want = expected.sets.at(set);
  if (!s.failed_status.empty()) candidate_failure(s);
  check_tiling(s);
  if (s.input_fingerprints.size() != op.inputs.size() || s.outputs.size() != op.outputs.size()) {
    fail("runtime_error", "malformed_delivery",
         "the candidate delivered " + std::to_string(s.outputs.size()) + " outputs and " +
             std::to_string(s.input_fingerprints.size()) +
             " input fingerprints; the operator has " + std::to_string(op.outputs.size()) +
             " and " + std::to_string(op.inputs.size()));
  }
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    // A scratch input is the kernel's to update (op.json "scratch").
    if (!op.inputs[i].scratch && s.input_fingerprints[i] != want.input_fingerprints[i]) {
      // Name the changed elements when the candidate delivered the bytes, against the inputs
      // regenerated here.
      if (i < s.changed_inputs.size() && s.changed_inputs[i].size() == op.inputs[i].bytes()) {
        const auto inputs = make_inputs(op, set);
        if (auto f =
                check_input_unchanged(op.inputs[i], inputs[i].data(), s.changed_inputs[i].data())) {
          fail("precision_error", f->kind, f->message + input_update_hint);
        }
      }
      fail("precision_error", "input_modified",
           "input " + op.inputs[i].name +
               " differs after the run from the data the kernel was given (a kernel must not "
               "write its inputs)" +
               input_update_hint);
    }
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const npu::tensor_spec& t = op.outputs[i];
    if (s.outputs[i].size() != t.bytes()) {
      fail("runtime_error", "malformed_delivery",
           "output " + t.name + ": " + std::to_string(s.outputs[i].size()) +
               " bytes delivered, the tensor holds " + std::to_string(t.bytes()));
    }
    if (auto f = compare_output(t, s.outputs[i].data(), want.values(i), op.tolerance_for(t), set)) {
      const bool stale =
          set > 0 && !compare_output(t, s.outputs[i].data(), expected.sets[set - 1].values(i),
                                     op.tolerance_for(t), set);
      if (stale) {
        fail("precision_error", "stale_output",
             "output " + t.name + " holds the expected result of input set " +
                 std::to_string(set - 1) + ", not of this one: results cached across input sets");
      }
      fail("precision_error", f->kind, f->message);
    }
  }
  const auto initial = initial_outputs(op, set);
  if (auto f = check_set_trace(spec, s, set == 0, set == 0 ? &warnings : nullptr, &initial)) {
    fail("precision_error", f->kind, f->message);
  }
  if (has_gm_reads(s)) {
    // Set 0's inputs as the expected outputs keep them, by reference: a conditional of them and
    // a fresh draw would copy them.
    std::vector<std::vector<uint8_t>> drawn;
    std::vector<const uint8_t*> inputs = expected.first_set_inputs;
    if (set != 0 || inputs.size() != op.inputs.size()) {
      drawn = make_inputs(op, set);
      inputs.clear();
      for (const auto& d : drawn) inputs.push_back(d.empty() ? nullptr : d.data());
    }
    if (auto f = check_gm_reads(op, s, set, inputs, initial)) {
      fail("precision_error", f->kind, f->message);
    }
  }
}

// Checks every delivered set on up to `threads` threads. The sets are independent (only set 0
// adds warnings), so the verdict is the sequential one: the failure of the lowest failing set.
void check_sets(const driver_spec& spec, const run_report& report, const expected_outputs& expected,
                uint32_t threads, std::vector<std::string>& warnings) {
  const uint32_t sets = static_cast<uint32_t>(report.sets.size());
  std::vector<std::exception_ptr> failures(sets);
  std::atomic<uint32_t> next{0};
  auto check_next_sets = [&] {
    for (uint32_t set = next++; set < sets; set = next++) {
      try {
        check_set(spec, report, expected, set, warnings);
      } catch (...) {
        failures[set] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (uint32_t t = 1; t < std::min(threads, sets); ++t) helpers.emplace_back(check_next_sets);
  check_next_sets();
  for (std::thread& helper : helpers) helper.join();
  for (uint32_t set = 0; set < sets; ++set) {
    if (!failures[set]) continue;
    try {
      std::rethrow_exception(failures[set]);
    } catch (const evaluation_failure& v) {
      fail(v.status(), v.kind(),
           "input set " + std::to_string(set) + " (seed " + std::to_string(spec.op.seed + set) +
               "): " + v.what());
    }
  }
}

}  // namespace

npu::eval_result failed_result(const driver_spec* spec, npu::eval_status status,
                               const std::string& kind, const std::string& message) {
  npu::eval_result r;
  r.status = status;
  r.error_kind = kind;
  r.message = message;
  r.latency_is_simulated = true;
  r.device = "sim";
  r.device_profile = spec != nullptr ? spec->hw.name : "";
  return r;
}

judgement judge_run(const driver_spec& spec, const run_report& report,
                    const expected_outputs& expected, uint32_t check_threads) {
  judgement out;
  npu::eval_result& result = out.result;
  result = failed_result(&spec, npu::eval_status::infra_error, "", "");
  std::vector<std::string> diagnostics;
  for (const auto& d : report.diagnostics) {
    if (diagnostics.size() == max_candidate_diagnostics) break;
    diagnostics.push_back(d.substr(0, max_diagnostic_chars));
  }
  // The candidate's own (it can only add to them) and the checker's, each at most once.
  std::vector<std::string> warnings;
  for (const auto& w : report.warnings) {
    if (warnings.size() == max_candidate_diagnostics) break;
    warnings.push_back(w.substr(0, max_diagnostic_chars));
  }
  try {
    if (!expected.failure.empty()) fail("runtime_error", "reference_failed", expected.failure);
    const uint64_t work = judge_work(report);
    diagnostics.push_back("checker work " + std::to_string(work) + " units (limit " +
                          std::to_string(max_judge_work) + ")");
    if (work > max_judge_work) {
      fail("runtime_error", "judge_limit",
           "the delivery asks the checker for " + std::to_string(work) +
               " units of work (trace records, UB and output bytes to replay); the limit is " +
               std::to_string(max_judge_work));
    }
    if (report.sets.empty()) {
      fail("runtime_error", "no_delivery", "the candidate delivered no input set");
    }
    const bool last_failed = !report.sets.back().failed_status.empty();
    if (report.sets.size() > spec.input_sets ||
        (report.sets.size() < spec.input_sets && !last_failed)) {
      fail("runtime_error", "malformed_delivery",
           "the candidate delivered " + std::to_string(report.sets.size()) + " of " +
               std::to_string(spec.input_sets) + " input sets");
    }
    if (expected.sets.size() < report.sets.size()) {
      fail("infra_error", "reference", "the reference computed fewer input sets than were run");
    }
    const auto check_start = std::chrono::steady_clock::now();
    const set_report& delivered_first = report.sets[0];
    out.first_set_tiling = tiling_decision{delivered_first.block_dim, delivered_first.tiling_key,
                                           delivered_first.workspace_bytes};
    check_sets(spec, report, expected, check_threads, warnings);
    const auto timing_start = std::chrono::steady_clock::now();
    result.phases.check = seconds_between(check_start, timing_start);
    const set_report& first = report.sets[0];
    diagnostics.push_back("blockDim " + std::to_string(first.block_dim) + ", tiling key " +
                          std::to_string(first.tiling_key) + ", tiling data " +
                          std::to_string(first.tiling_data_size) + " bytes, workspace " +
                          std::to_string(first.workspace_bytes) + " bytes; " +
                          std::to_string(spec.input_sets) + " input sets passed");

    // A core's work on a unit it does not have would be timed on hardware that does not exist.
    if (auto mixed = find_unit_mix(first.traces, spec.hw)) {
      fail("runtime_error", "unsupported", *mixed);
    }
    if (auto hangs = find_unfit_waiting_launch(first.traces, spec.hw)) {
      fail("runtime_error", "deadlock", *hangs);
    }
    const timing_outcome timing = time_kernel(spec, first.traces);
    result.latency_us = timing.latency.median_us;
    result.latency = timing.latency;
    result.profile = timing.profile;
    result.roof = timing.roof;
    diagnostics.push_back(timing.roof_summary);

    if (spec.detect_races) {
      for (size_t block = 0; block < first.traces.size(); ++block) {
        if (auto race = find_first_race(first.traces[block])) {
          fail("precision_error", "data_race",
               "block " + std::to_string(block) + ": " + race->message);
        }
      }
      if (auto race = find_cross_core_race(first.traces)) {
        fail("precision_error", "data_race", race->message);
      }
    }
    result.phases.timing = seconds_between(timing_start, std::chrono::steady_clock::now());
    if (!(timing.raw_latency_us > 0) || !std::isfinite(timing.raw_latency_us)) {
      fail("precision_error", "suspicious",
           "simulated latency " + format_value(timing.raw_latency_us) +
               " us is not a positive time: the trace holds no work");
    }
    // Judged on the noise-free latency: noise models the measurement, not the kernel.
    if (timing.raw_latency_us < timing.roof.bound_us * (1 - 1e-9)) {
      fail("precision_error", "suspicious",
           "simulated latency " + format_value(timing.raw_latency_us) + " us is below the " +
               timing.roof_summary +
               ": the kernel moves less data or does less work than the operator needs (its inputs "
               "and outputs once, and the least work op.json declares)");
    }
    result.status = npu::eval_status::ok;
  } catch (const evaluation_failure& v) {
    result.error_kind = v.kind();
    result.message = v.what();
    // Wrong values where the kernel accumulated into an output that starts as poison: most
    // likely op.json lacks the output's initial contents, not the kernel a fix.
    if (v.kind() == "mismatch" || v.kind() == "unwritten_output") {
      for (const std::string& w : warnings) {
        if (w.find(accumulation_into_uninitialised_output) != std::string::npos) {
          result.message += " -- likely cause: " + w;
          break;
        }
      }
    }
    // Failures thrown here name one of eval_status's names; the candidate's are mapped by
    // candidate_failure.
    if (!npu::parse_eval_status(v.status(), result.status)) {
      result.status = npu::eval_status::infra_error;
      result.message = "checker: unknown status '" + v.status() + "': " + v.what();
    }
  } catch (const std::exception& e) {
    // A checker-side failure (a bad hardware profile value reaching the timing model, ...).
    result.status = npu::eval_status::infra_error;
    result.error_kind = "driver";
    result.message = std::string("checker: ") + e.what();
  }
  result.diagnostics = std::move(diagnostics);
  result.warnings = std::move(warnings);
  return out;
}

}  // namespace aopt::sim
