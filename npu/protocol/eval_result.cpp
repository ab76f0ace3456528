#include "npu/protocol/eval_result.hpp"

#include <cstdio>
#include <stdexcept>

#include "base/utf8.hpp"

namespace aopt::npu {

namespace {

using json = nlohmann::json;

// Reads `key` into `out` when present; an absent key keeps the default, so results written
// by an older driver (or a partial result.json) still load.
template <class T>
void read(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) it->get_to(out);
}

json pipe_json(const pipe_busy& p) {
  return {{"time_us", p.time_us}, {"ratio", p.ratio}};
}

void read_pipe(const json& j, const char* key, pipe_busy& p) {
  auto it = j.find(key);
  if (it == j.end()) return;
  read(*it, "time_us", p.time_us);
  read(*it, "ratio", p.ratio);
}

json profile_summary_json(const eval_profile& p) {
  json j = {{"scalar", pipe_json(p.scalar)},
            {"vector", pipe_json(p.vector)},
            {"mte2", pipe_json(p.mte2)},
            {"mte3", pipe_json(p.mte3)},
            {"block_dim", p.block_dim},
            {"ub_high_water_bytes", p.ub_high_water_bytes},
            {"ub_capacity_bytes", p.ub_capacity_bytes},
            {"gm_read_bytes", p.gm_read_bytes},
            {"gm_write_bytes", p.gm_write_bytes},
            {"dma_bursts", p.dma_bursts},
            {"mean_burst_bytes", p.mean_burst_bytes},
            {"scalar_accesses", p.scalar_accesses},
            {"vector_instructions", p.vector_instructions},
            {"barrier_stall_us", p.barrier_stall_us},
            {"flag_wait_us", p.flag_wait_us},
            {"auto_sync_wait_us", p.auto_sync_wait_us},
            {"waves", p.waves},
            {"launch_overhead_us", p.launch_overhead_us},
            {"core_time_max_us", p.core_time_max_us},
            {"core_time_mean_us", p.core_time_mean_us},
            {"trace_instructions", p.trace_instructions}};
  // Only where the cube worked, so that a vector kernel's profile reads as it always did.
  for (const auto& [key, busy] : {std::pair<const char*, const pipe_busy&>{"mte1", p.mte1},
                                  {"cube", p.cube},
                                  {"fixpipe", p.fixpipe}}) {
    if (busy.time_us > 0) j[key] = pipe_json(busy);
  }
  return j;
}

json profile_json(const eval_profile& p) {
  json j = profile_summary_json(p);
  if (!p.latency_sensitivity.empty()) j["latency_sensitivity"] = p.latency_sensitivity;
  if (!p.ub_allocations.empty()) {
    json& all = j["ub_allocations"] = json::array();
    for (const ub_allocation& a : p.ub_allocations) {
      all.push_back({{"line", a.line}, {"buffers", a.buffers}, {"bytes_each", a.bytes_each}});
    }
  }
  return j;
}

void read_profile(const json& j, eval_profile& p) {
  read_pipe(j, "scalar", p.scalar);
  read_pipe(j, "vector", p.vector);
  read_pipe(j, "mte2", p.mte2);
  read_pipe(j, "mte3", p.mte3);
  read_pipe(j, "mte1", p.mte1);
  read_pipe(j, "cube", p.cube);
  read_pipe(j, "fixpipe", p.fixpipe);
  read(j, "block_dim", p.block_dim);
  read(j, "ub_high_water_bytes", p.ub_high_water_bytes);
  read(j, "ub_capacity_bytes", p.ub_capacity_bytes);
  read(j, "gm_read_bytes", p.gm_read_bytes);
  read(j, "gm_write_bytes", p.gm_write_bytes);
  read(j, "dma_bursts", p.dma_bursts);
  read(j, "mean_burst_bytes", p.mean_burst_bytes);
  read(j, "scalar_accesses", p.scalar_accesses);
  read(j, "vector_instructions", p.vector_instructions);
  read(j, "barrier_stall_us", p.barrier_stall_us);
  read(j, "flag_wait_us", p.flag_wait_us);
  read(j, "auto_sync_wait_us", p.auto_sync_wait_us);
  read(j, "waves", p.waves);
  read(j, "launch_overhead_us", p.launch_overhead_us);
  read(j, "core_time_max_us", p.core_time_max_us);
  read(j, "core_time_mean_us", p.core_time_mean_us);
  read(j, "trace_instructions", p.trace_instructions);
  if (auto it = j.find("latency_sensitivity"); it != j.end() && it->is_object()) {
    p.latency_sensitivity.clear();
    for (const auto& [name, slope] : it->items()) {
      if (slope.is_number()) p.latency_sensitivity[name] = slope.get<double>();
    }
  }
  if (auto it = j.find("ub_allocations"); it != j.end() && it->is_array()) {
    p.ub_allocations.clear();
    for (const json& a : *it) {
      if (!a.is_object()) continue;
      ub_allocation out;
      read(a, "line", out.line);
      read(a, "buffers", out.buffers);
      read(a, "bytes_each", out.bytes_each);
      p.ub_allocations.push_back(out);
    }
  }
}

json measurement_json(const measurement_stats& m) {
  return {{"measured", m.measured},
          {"median_us", m.median_us},
          {"q1_us", m.q1_us},
          {"q3_us", m.q3_us},
          {"iqr_us", m.iqr_us},
          {"n", m.n},
          {"verdict", m.verdict},
          {"speedup", m.speedup},
          {"speedup_ci_low", m.speedup_ci_low},
          {"speedup_ci_high", m.speedup_ci_high},
          {"pairs", m.pairs},
          {"device_id", m.device_id},
          {"cann_version", m.cann_version},
          {"driver_version", m.driver_version},
          {"clock_mhz", m.clock_mhz}};
}

void read_measurement(const json& j, measurement_stats& m) {
  read(j, "measured", m.measured);
  read(j, "median_us", m.median_us);
  read(j, "q1_us", m.q1_us);
  read(j, "q3_us", m.q3_us);
  read(j, "iqr_us", m.iqr_us);
  read(j, "n", m.n);
  read(j, "verdict", m.verdict);
  read(j, "speedup", m.speedup);
  read(j, "speedup_ci_low", m.speedup_ci_low);
  read(j, "speedup_ci_high", m.speedup_ci_high);
  read(j, "pairs", m.pairs);
  read(j, "device_id", m.device_id);
  read(j, "cann_version", m.cann_version);
  read(j, "driver_version", m.driver_version);
  read(j, "clock_mhz", m.clock_mhz);
}

}  // namespace

bool improves_on(const eval_result& r, double best_us) {
  if (!r.ok()) return false;
  if (r.measurement.verdict == "faster") return true;
  if (r.measurement.verdict == "not_faster" || r.measurement.verdict == "filtered") return false;
  return r.latency_us < best_us;
}

bool is_transient_failure(const eval_result& r) {
  return r.status == eval_status::infra_error ||
         (r.status == eval_status::timeout && r.error_kind == "wall_clock");
}

std::string describe_outcome(const eval_result& r) {
  if (r.ok()) {
    char latency[32];
    std::snprintf(latency, sizeof latency, "%g", r.latency_us);
    return std::string("ok, ") + latency + " us";
  }
  std::string what = to_string(r.status);
  if (!r.error_kind.empty()) what += "/" + r.error_kind;
  return what + ": " + r.message;
}

void make_valid_utf8(eval_result& r) {
  for (std::string* text : {&r.error_kind, &r.message, &r.device, &r.device_profile}) {
    aopt::make_valid_utf8(*text);
  }
  for (std::string& line : r.diagnostics) aopt::make_valid_utf8(line);
  for (std::string& line : r.warnings) aopt::make_valid_utf8(line);
}

void to_json(nlohmann::json& j, const eval_result& r) {
  // Texts are made valid UTF-8 here too, so a result from any device serializes.
  std::vector<std::string> diagnostics;
  diagnostics.reserve(r.diagnostics.size());
  for (const std::string& line : r.diagnostics) diagnostics.push_back(to_valid_utf8(line));
  j = json{{"status", to_string(r.status)},
           {"error_kind", to_valid_utf8(r.error_kind)},
           {"message", to_valid_utf8(r.message)},
           {"latency_us", r.latency_us},
           {"latency",
            {{"median_us", r.latency.median_us},
             {"min_us", r.latency.min_us},
             {"max_us", r.latency.max_us},
             {"stddev_us", r.latency.stddev_us},
             {"repetitions", r.latency.repetitions}}},
           {"latency_is_simulated", r.latency_is_simulated},
           {"profile", profile_json(r.profile)},
           {"roofline", r.roof},
           {"diagnostics", std::move(diagnostics)},
           {"device", to_valid_utf8(r.device)},
           {"device_profile", to_valid_utf8(r.device_profile)},
           {"compile_seconds", r.compile_seconds},
           {"run_seconds", r.run_seconds},
           {"phases", r.phases},
           {"from_cache", r.from_cache}};
  if (r.measurement.measured || !r.measurement.verdict.empty()) {
    j["measurement"] = measurement_json(r.measurement);
  }
  if (r.confirmed) j["confirmed"] = true;
  if (!r.warnings.empty()) {
    std::vector<std::string> warnings;
    for (const std::string& line : r.warnings) warnings.push_back(to_valid_utf8(line));
    j["warnings"] = std::move(warnings);
  }
}

void from_json(const nlohmann::json& j, eval_result& r) {
  if (!j.is_object()) throw std::invalid_argument("eval_result: expected a JSON object");
  std::string status_text = j.at("status").get<std::string>();
  if (!parse_eval_status(status_text, r.status)) {
    throw std::invalid_argument("eval_result: unknown status '" + status_text + "'");
  }
  read(j, "error_kind", r.error_kind);
  read(j, "message", r.message);
  read(j, "latency_us", r.latency_us);
  if (auto it = j.find("latency"); it != j.end()) {
    read(*it, "median_us", r.latency.median_us);
    read(*it, "min_us", r.latency.min_us);
    read(*it, "max_us", r.latency.max_us);
    read(*it, "stddev_us", r.latency.stddev_us);
    read(*it, "repetitions", r.latency.repetitions);
  }
  read(j, "latency_is_simulated", r.latency_is_simulated);
  if (auto it = j.find("profile"); it != j.end()) read_profile(*it, r.profile);
  if (auto it = j.find("roofline"); it != j.end()) from_json(*it, r.roof);
  read(j, "diagnostics", r.diagnostics);
  read(j, "warnings", r.warnings);
  read(j, "device", r.device);
  read(j, "device_profile", r.device_profile);
  read(j, "compile_seconds", r.compile_seconds);
  read(j, "run_seconds", r.run_seconds);
  if (auto it = j.find("phases"); it != j.end()) from_json(*it, r.phases);
  read(j, "from_cache", r.from_cache);
  read(j, "confirmed", r.confirmed);
  if (auto it = j.find("measurement"); it != j.end()) read_measurement(*it, r.measurement);
}

namespace {

// The phases in the order an evaluation goes through them.
constexpr std::pair<const char*, double eval_phases::*> phase_fields[] = {
    {"inputs", &eval_phases::inputs},   {"reference", &eval_phases::reference},
    {"compile", &eval_phases::compile}, {"symbols", &eval_phases::symbols},
    {"link", &eval_phases::link},       {"screen_wait", &eval_phases::screen_wait},
    {"run", &eval_phases::run},         {"decode", &eval_phases::decode},
    {"check", &eval_phases::check},     {"timing", &eval_phases::timing}};

}  // namespace

std::vector<std::pair<const char*, double>> named_phases(const eval_phases& p) {
  std::vector<std::pair<const char*, double>> out;
  for (const auto& [name, field] : phase_fields) out.emplace_back(name, p.*field);
  return out;
}

void to_json(nlohmann::json& j, const eval_phases& p) {
  j = json::object();
  for (const auto& [name, seconds] : named_phases(p)) j[name] = seconds;
}

void from_json(const nlohmann::json& j, eval_phases& p) {
  if (!j.is_object()) throw std::invalid_argument("eval_result: \"phases\" is not an object");
  for (const auto& [name, field] : phase_fields) read(j, name, p.*field);
}

void to_json(nlohmann::json& j, const eval_profile& p) {
  j = profile_json(p);
}

void from_json(const nlohmann::json& j, eval_profile& p) {
  read_profile(j, p);
}

void to_json(nlohmann::json& j, const roofline& r) {
  j = json{{"memory_bound_us", r.memory_bound_us},
           {"vector_bound_us", r.vector_bound_us},
           {"compute_bound_us", r.compute_bound_us},
           {"bound_us", r.bound_us},
           {"achieved_fraction", r.achieved_fraction}};
}

void from_json(const nlohmann::json& j, roofline& r) {
  read(j, "memory_bound_us", r.memory_bound_us);
  read(j, "vector_bound_us", r.vector_bound_us);
  read(j, "compute_bound_us", r.compute_bound_us);
  read(j, "bound_us", r.bound_us);
  read(j, "achieved_fraction", r.achieved_fraction);
}

void to_json(nlohmann::json& j, const measurement_stats& m) {
  j = measurement_json(m);
}

void from_json(const nlohmann::json& j, measurement_stats& m) {
  read_measurement(j, m);
}

}  // namespace aopt::npu
