#include "agent/heuristics/heuristic_diagnoser.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"
#include "agent/kernel_text/tiling_names.hpp"
#include "agent/motifs/bottleneck_phrases.hpp"

namespace aopt::agent {

namespace {

// A pipe whose busy time overlaps the others' when the kernel pipelines: its bottleneck tag, its
// name in evidence, its busy share of the core time.
struct pipe_share {
  const char* tag;
  std::string name;
  double ratio;
};

// MTE2, vector, MTE3 and the cube's MTE1, M and FIX (zero in a vector kernel), in this order.
std::vector<pipe_share> overlapping_pipes(const npu::eval_profile& p) {
  return {{"mte2_bound", "MTE2", p.mte2.ratio},     {"vector_bound", "vector", p.vector.ratio},
          {"mte3_bound", "MTE3", p.mte3.ratio},     {"mte1_bound", "MTE1", p.mte1.ratio},
          {"cube_bound", "cube (M)", p.cube.ratio}, {"fixpipe_bound", "FIX", p.fixpipe.ratio}};
}

const std::vector<std::string>& priority() {
  static const std::vector<std::string> order = {
      "scalar_heavy", "barrier_stall", "no_overlap",    "extra_gm_traffic",
      "small_bursts", "ub_underuse",   "core_underuse", "core_imbalance",
      "launch_bound", "mte2_bound",    "mte3_bound",    "vector_bound",
      "mte1_bound",   "cube_bound",    "fixpipe_bound", "near_roofline"};
  return order;
}

std::string format(const char* fmt, double a, double b = 0) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), fmt, a, b);
  return buf;
}

}  // namespace

kernel_signals read_kernel_signals(const std::string& kernel) {
  kernel_facts f(kernel);
  const std::string& masked = f.masked();
  kernel_signals s;
  std::vector<loop_range> loops = find_loops(masked, {0, masked.size()});
  auto in_loop = [&](size_t pos) {
    return std::any_of(loops.begin(), loops.end(),
                       [&](const loop_range& l) { return pos > l.body.begin && pos < l.body.end; });
  };
  for (const call_site& c : find_calls(kernel, masked, "PipeBarrier", {0, masked.size()})) {
    std::string call = masked.substr(c.name_begin, c.parens.end - c.name_begin);
    if (call.find("PIPE_ALL") != std::string::npos && in_loop(c.name_begin))
      ++s.full_barriers_in_loops;
  }
  for (const char* api : {"GetValue", "SetValue"}) {
    for (const call_site& c : find_calls(kernel, masked, api, {0, masked.size()})) {
      if (c.name_begin == 0 || masked[c.name_begin - 1] != '.') continue;
      // The object the call is made on: the identifier right before the '.'.
      size_t e = c.name_begin - 1;
      size_t b = e;
      while (b > 0 && is_identifier_char(masked[b - 1])) --b;
      std::string object = masked.substr(b, e - b);
      if (!f.is_global(object) && in_loop(c.name_begin)) ++s.scalar_accesses_in_loops;
    }
  }
  for (const call_site& c : find_calls(kernel, masked, "InitBuffer", {0, masked.size()})) {
    if (c.arguments.size() == 3 && c.arguments[1] == "1" &&
        f.is_queue(operand_base(c.arguments[0]))) {
      ++s.single_buffer_queues;
    }
  }
  for (const int_constant& c : find_int_constants(masked)) {
    if (classify_tiling_name(c.name) == tiling_role::buffer_num && c.value == 1)
      ++s.single_buffer_queues;
  }
  s.data_copies =
      static_cast<uint32_t>(find_calls(kernel, masked, "DataCopy", {0, masked.size()}).size() +
                            find_calls(kernel, masked, "DataCopyPad", {0, masked.size()}).size());
  return s;
}

heuristic_diagnoser::heuristic_diagnoser(diagnoser_options options) : options_(options) {}

heuristic_diagnosis heuristic_diagnoser::diagnose(const diagnosis_input& input) const {
  std::map<std::string, std::string> found;  // tag -> evidence
  const kernel_signals sig = read_kernel_signals(input.kernel);
  const bool profiled = input.result != nullptr && input.result->ok();

  double scalar_ratio = 0;
  double stall_share = 0;
  double ratio_sum = 0;
  if (profiled) {
    const npu::eval_result& r = *input.result;
    const npu::eval_profile& p = r.profile;
    const double core_time = p.core_time_max_us > 0 ? p.core_time_max_us : r.latency_us;
    scalar_ratio = p.scalar.ratio;
    stall_share = core_time > 0 ? p.barrier_stall_us / core_time : 0;
    std::vector<pipe_share> shares = overlapping_pipes(p);
    for (const pipe_share& share : shares) ratio_sum += share.ratio;
    std::stable_sort(shares.begin(), shares.end(),
                     [](const pipe_share& a, const pipe_share& b) { return a.ratio > b.ratio; });
    if (shares[0].ratio >= options_.pipe_bound_ratio) {
      found[shares[0].tag] =
          shares[0].name + format(" busy %.0f%% of the core time", shares[0].ratio * 100);
    }
    if (ratio_sum < options_.overlap_sum && shares[1].ratio >= 0.15) {
      const bool cube = p.mte1.ratio + p.cube.ratio + p.fixpipe.ratio > 0;
      found["no_overlap"] =
          format(cube ? "MTE2+vector+MTE3+MTE1+cube+FIX busy ratios sum to %.2f (< %.2f): the "
                        "pipes take turns"
                      : "MTE2+vector+MTE3 busy ratios sum to %.2f (< %.2f): the pipes take turns",
                 ratio_sum, options_.overlap_sum);
    }
    if (p.scalar.ratio >= options_.scalar_ratio ||
        (p.scalar_accesses >= 64 && p.scalar_accesses > p.vector_instructions)) {
      found["scalar_heavy"] =
          format("scalar pipe %.0f%% of the core time, %.0f GetValue/SetValue accesses",
                 p.scalar.ratio * 100, static_cast<double>(p.scalar_accesses));
    }
    if (stall_share >= options_.barrier_stall_share) {
      found["barrier_stall"] = format(
          "issue stalled in PipeBarrier<PIPE_ALL> for %.0f%% of the core time", stall_share * 100);
    }
    if (p.block_dim > 0 && p.block_dim * 2 <= options_.cores &&
        p.core_time_max_us > p.launch_overhead_us) {
      found["core_underuse"] = format("block dim %.0f of %.0f cores", p.block_dim, options_.cores);
    }
    if (p.block_dim > 1 && p.core_time_mean_us > 0 &&
        p.core_time_max_us / p.core_time_mean_us >= options_.imbalance_ratio) {
      found["core_imbalance"] =
          format("slowest core %.2fx the mean core time", p.core_time_max_us / p.core_time_mean_us);
    }
    const double tensors = input.tensor_count > 0 ? input.tensor_count : 3;
    const double bursts_per_core =
        p.block_dim > 0 ? static_cast<double>(p.dma_bursts) / p.block_dim : 0;
    const bool many_tiles = bursts_per_core >= 4 * tensors;
    if (p.mean_burst_bytes > 0 && p.mean_burst_bytes < options_.small_burst_bytes && many_tiles) {
      found["small_bursts"] = format("mean DMA burst %.0f bytes, %.0f bursts per core",
                                     p.mean_burst_bytes, bursts_per_core);
    }
    if (p.ub_capacity_bytes > 0 && many_tiles &&
        static_cast<double>(p.ub_high_water_bytes) <
            options_.ub_underuse_share * p.ub_capacity_bytes) {
      found["ub_underuse"] =
          format("UB high-water %.0f of %.0f bytes", static_cast<double>(p.ub_high_water_bytes),
                 static_cast<double>(p.ub_capacity_bytes));
    }
    if (r.latency_us > 0 && p.launch_overhead_us >= options_.launch_share * r.latency_us) {
      found["launch_bound"] =
          format("launch overhead %.1f us of %.1f us", p.launch_overhead_us, r.latency_us);
    }
    const double moved = static_cast<double>(p.gm_read_bytes + p.gm_write_bytes);
    if (input.io_bytes > 0 &&
        moved >= options_.extra_traffic_ratio * static_cast<double>(input.io_bytes)) {
      found["extra_gm_traffic"] =
          format("%.2fx the input+output bytes moved through GM (%.0f bytes)",
                 moved / static_cast<double>(input.io_bytes), moved);
    }
    if (r.roof.achieved_fraction >= options_.roofline_fraction) {
      found["near_roofline"] =
          format("%.0f%% of the roofline bound", r.roof.achieved_fraction * 100);
    }
  }

  if (sig.full_barriers_in_loops > 0 && (!profiled || stall_share >= 0.02) &&
      found.count("barrier_stall") == 0) {
    found["barrier_stall"] =
        format("%.0f PipeBarrier<PIPE_ALL> inside loops", sig.full_barriers_in_loops);
  }
  if (sig.scalar_accesses_in_loops > 0 && (!profiled || scalar_ratio >= 0.05) &&
      found.count("scalar_heavy") == 0) {
    found["scalar_heavy"] =
        format("%.0f GetValue/SetValue calls inside loops", sig.scalar_accesses_in_loops);
  }
  if (sig.single_buffer_queues > 0 && (!profiled || ratio_sum < 1.5) &&
      found.count("no_overlap") == 0) {
    found["no_overlap"] =
        format("%.0f queues or buffer counts with a single buffer", sig.single_buffer_queues);
  }

  if (found.empty() && profiled) {
    std::vector<pipe_share> shares = overlapping_pipes(input.result->profile);
    // The first of the busiest, as the ranking above picks it.
    auto top = std::max_element(
        shares.begin(), shares.end(),
        [](const pipe_share& a, const pipe_share& b) { return a.ratio < b.ratio; });
    if (top->ratio > 0) {
      found[top->tag] =
          format("no threshold crossed; busiest pipe at %.0f%% of the core time", top->ratio * 100);
    }
  }

  heuristic_diagnosis d;
  for (const std::string& tag : priority()) {
    auto it = found.find(tag);
    if (it == found.end()) continue;
    d.tags.push_back(tag);
    d.evidence.push_back(tag + ": " + it->second);
  }
  d.query = bottleneck_text(d.tags);
  return d;
}

}  // namespace aopt::agent
