#include "timing_sensitivity.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "timing_model.hpp"

namespace aopt::sim {
namespace {

// Relative step of the forward difference: large enough to stay clear of rounding in cycle sums,
// small enough to rarely cross a change of the critical path.
constexpr double relative_step = 1e-2;

bool is_dma(const instruction& in) {
  return in.cls == op_class::dma_in || in.cls == op_class::dma_out;
}

// A DMA the timing model charges the short-burst penalty (timing_model.cpp, dma_cost).
bool is_short_burst(const instruction& in, const hw_profile& hw) {
  if (!is_dma(in)) return false;
  const uint64_t bursts = std::max<uint64_t>(in.bursts, 1);
  const uint64_t shortest = in.min_burst_bytes > 0 ? in.min_burst_bytes : in.bytes / bursts;
  return shortest < hw.dma_efficient_burst_bytes;
}

struct linear_constant {
  const char* name;
  double hw_profile::*field;
  // Whether an instruction is charged this constant (none: the replay is skipped, 0).
  std::function<bool(const instruction&, const hw_profile&)> uses;
};

const std::vector<linear_constant>& table() {
  static const std::vector<linear_constant> constants = {
      {"dma_latency_cycles", &hw_profile::dma_latency_cycles,
       [](const instruction& in, const hw_profile&) { return is_dma(in); }},
      {"dma_burst_overhead_cycles", &hw_profile::dma_burst_overhead_cycles,
       [](const instruction& in, const hw_profile&) { return is_dma(in); }},
      {"dma_short_burst_penalty", &hw_profile::dma_short_burst_penalty, is_short_burst},
      {"vec_startup_cycles", &hw_profile::vec_startup_cycles,
       [](const instruction& in, const hw_profile&) { return is_vector_class(in.cls); }},
      {"vec_simple_cycles_per_repeat", &hw_profile::vec_simple_cycles_per_repeat,
       [](const instruction& in, const hw_profile&) {
         return in.cls == op_class::vec_simple || in.cls == op_class::dma_local;
       }},
      {"vec_mul_cycles_per_repeat", &hw_profile::vec_mul_cycles_per_repeat,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::vec_mul; }},
      {"vec_div_transcendental_cycles_per_repeat",
       &hw_profile::vec_div_transcendental_cycles_per_repeat,
       [](const instruction& in, const hw_profile&) {
         return in.cls == op_class::vec_div_transcendental;
       }},
      {"vec_reduce_cycles_per_repeat", &hw_profile::vec_reduce_cycles_per_repeat,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::vec_reduce; }},
      {"vec_cast_cycles_per_repeat", &hw_profile::vec_cast_cycles_per_repeat,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::vec_cast; }},
      {"vec_compare_select_cycles_per_repeat", &hw_profile::vec_compare_select_cycles_per_repeat,
       [](const instruction& in, const hw_profile&) {
         return in.cls == op_class::vec_compare_select;
       }},
      {"issue_cycles", &hw_profile::issue_cycles,
       [](const instruction&, const hw_profile&) { return true; }},
      {"scalar_ub_access_cycles", &hw_profile::scalar_ub_access_cycles,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::scalar_ub; }},
      {"scalar_gm_access_cycles", &hw_profile::scalar_gm_access_cycles,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::scalar_gm; }},
      // The cube's per-instruction costs (kernel_cube.cpp).
      {"cube_startup_cycles", &hw_profile::cube_startup_cycles,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::cube_mmad; }},
      {"mte1_latency_cycles", &hw_profile::mte1_latency_cycles,
       [](const instruction& in, const hw_profile&) { return in.cls == op_class::cube_load; }},
      {"fixpipe_latency_cycles", &hw_profile::fixpipe_latency_cycles,
       [](const instruction& in, const hw_profile&) {
         return in.cls == op_class::cube_fixpipe || in.cls == op_class::cube_fixpipe_local;
       }},
  };
  return constants;
}

// Every core replayed on its own, with the launch's L2 hits (l2_reuse.hpp).
std::vector<core_timing> replay_each(const std::vector<core_trace>& traces, const hw_profile& hw) {
  const auto block_dim = static_cast<uint32_t>(traces.size());
  const std::vector<l2_hit_bytes> l2_hits = find_l2_hits(traces);
  std::vector<core_timing> cores;
  cores.reserve(traces.size());
  for (size_t i = 0; i < traces.size(); ++i)
    cores.push_back(replay_core(traces[i], hw, block_dim, &l2_hits[i]));
  return cores;
}

}  // namespace

const std::vector<std::string>& linear_timing_constants() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"launch_base_us", "launch_per_core_us"};
    for (const linear_constant& c : table()) n.push_back(c.name);
    return n;
  }();
  return names;
}

std::string why_not_linear(const std::string& constant) {
  const auto& linear = linear_timing_constants();
  if (std::find(linear.begin(), linear.end(), constant) != linear.end()) return "";
  if (constant == "dma_efficient_burst_bytes") {
    return "a threshold: the simulated latency is piecewise constant in it, so latencies give "
           "no gradient to fit it with";
  }
  if (constant == "pipe_queue_depth") {
    return "an integer queue length: the simulated latency is piecewise constant in it, so "
           "latencies give no gradient to fit it with";
  }
  if (constant == "clock_ghz" || constant == "gm_read_bytes_per_cycle" ||
      constant == "gm_write_bytes_per_cycle" || constant == "hbm_gbps" ||
      constant == "dma_unaligned_efficiency" || constant == "cube_f16_macs_per_cycle" ||
      constant == "cube_i8_macs_per_cycle" || constant == "cube_f32_macs_per_cycle" ||
      constant == "l2_read_bytes_per_cycle" || constant == "mte1_bytes_per_cycle" ||
      constant == "fixpipe_bytes_per_cycle") {
    return "a rate the latency is inversely proportional to; calibration fits per-event costs "
           "only";
  }
  return "not a cost the timing model charges per event";
}

double simulated_latency_us(const std::vector<core_trace>& traces, const hw_profile& hw) {
  return combine_cores(replay_each(traces, hw), traces, hw).latency_us;
}

std::vector<std::pair<std::string, double>> latency_sensitivities(
    const std::vector<core_trace>& traces, const hw_profile& hw) {
  const std::vector<core_timing> cores = replay_each(traces, hw);
  return latency_sensitivities(traces, cores, combine_cores(cores, traces, hw), hw);
}

std::vector<std::pair<std::string, double>> latency_sensitivities(
    const std::vector<core_trace>& traces, const std::vector<core_timing>& cores,
    const kernel_timing& base, const hw_profile& hw) {
  std::vector<std::pair<std::string, double>> out;
  // The launch overhead is added outside every maximum: its derivatives are exact constants.
  out.emplace_back("launch_base_us", traces.empty() ? 0.0 : 1.0);
  out.emplace_back("launch_per_core_us", static_cast<double>(launch_cores(traces, hw)));
  const auto block_dim = static_cast<uint32_t>(traces.size());
  // One wave above the HBM floor: the latency is launch + the critical block's time, so only
  // that block needs replaying (the usual case; several waves or a binding floor replay all).
  const bool critical_only =
      !traces.empty() && base.waves == 1 && base.core_time_max_us > base.hbm_floor_us;
  // The critical block's loads hit L2 where the launch's earlier accesses touched their bytes.
  const std::vector<l2_hit_bytes> l2_hits =
      critical_only ? find_l2_hits(traces) : std::vector<l2_hit_bytes>();
  // One instruction of each kind (class, and for DMA whether a burst is short) stands for all
  // of that kind when asking which constants the launch uses: one pass over the traces.
  std::map<std::pair<op_class, bool>, const instruction*> kinds;
  for (const core_trace& t : traces) {
    for (const instruction& in : t.instructions) {
      const bool short_burst = is_short_burst(in, hw);
      kinds.emplace(std::make_pair(in.cls, short_burst), &in);
    }
  }
  for (const linear_constant& c : table()) {
    const bool used = std::any_of(kinds.begin(), kinds.end(),
                                  [&](const auto& kind) { return c.uses(*kind.second, hw); });
    double slope = 0;
    if (used) {
      hw_profile raised = hw;
      const double value = hw.*c.field;
      const double step = value > 0 ? value * relative_step : relative_step;
      raised.*c.field = value + step;
      if (critical_only) {
        const core_timing t = replay_core(traces[base.critical_core], raised, block_dim,
                                          &l2_hits[base.critical_core]);
        slope = hw.cycles_to_us(t.total_cycles - cores[base.critical_core].total_cycles) / step;
      } else {
        slope = (simulated_latency_us(traces, raised) - base.latency_us) / step;
      }
    }
    out.emplace_back(c.name, slope);
  }
  return out;
}

}  // namespace aopt::sim
