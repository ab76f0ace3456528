// The heuristic diagnoser: turns a kernel's profile (npu::eval_result) and its source into a
// bottleneck query and tags (Stage II's Diagnose step by rules instead of an LLM). Named
// "heuristic-diagnoser" wherever it appears.
//
// Profile signals (only when the result is ok), with the thresholds of diagnoser_options:
//   <pipe>_bound     the largest of the MTE2 / MTE3 / vector / MTE1 / cube / fixpipe ratios,
//                    when >= pipe_bound_ratio (mte2_bound, mte3_bound, vector_bound,
//                    mte1_bound, cube_bound, fixpipe_bound)
//   no_overlap       those ratios sum below overlap_sum (busy times add up instead of
//                    overlapping) and the second busiest of them is >= 0.15
//   scalar_heavy     scalar ratio >= scalar_ratio, or more GetValue/SetValue accesses than
//                    vector instructions (and at least 64 of them)
//   barrier_stall    PipeBarrier<PIPE_ALL> stall time >= barrier_stall_share of the core time
//   core_underuse    block dim <= cores / 2 while the slowest core runs longer than the launch
//   core_imbalance   slowest core / mean core time >= imbalance_ratio (block dim > 1)
//   small_bursts     mean DMA burst < small_burst_bytes with >= 4 bursts per tensor per core
//   ub_underuse      UB high-water mark < ub_underuse_share of the UB with >= 4 bursts per
//                    tensor per core (several tiles per core, so larger tiles would fit)
//   launch_bound     launch overhead >= launch_share of the latency
//   extra_gm_traffic GM bytes moved >= extra_traffic_ratio x the operator's input+output bytes
//   near_roofline    achieved roofline fraction >= roofline_fraction
// Static signals from the kernel text (used with or without a profile):
//   PipeBarrier<PIPE_ALL> inside a loop body         -> barrier_stall
//   GetValue/SetValue on a local tensor in a loop    -> scalar_heavy
//   a TQue InitBuffer with num 1, or a buffer-count constant of 1 -> no_overlap
// With a profile, a static signal becomes a tag only when the profile does not contradict it
// (scalar ratio >= 0.05, barrier stall share >= 0.02, pipe-ratio sum < 1.5 respectively).
// When no tag fires, the busiest pipe's <pipe>_bound is reported (evidence says so).
//
// Tags are ordered by priority (structural causes first): scalar_heavy, barrier_stall,
// no_overlap, extra_gm_traffic, small_bursts, ub_underuse, core_underuse, core_imbalance,
// launch_bound, mte2_bound, mte3_bound, vector_bound, near_roofline. The query is the
// bottleneck_phrases text of the tags in that order, the vocabulary tuples' Bottleneck fields use.
//
// Thread-safety: const methods may run concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/episode/roles.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

struct diagnoser_options {
  uint32_t cores = 40;  // vector cores of the device profile
  double pipe_bound_ratio = 0.6;
  double overlap_sum = 1.2;
  double scalar_ratio = 0.3;
  double barrier_stall_share = 0.1;
  double imbalance_ratio = 1.25;
  double small_burst_bytes = 16384;  // ascendc-reference §4: >= 16 KiB per DataCopy for peak
  double ub_underuse_share = 0.25;
  double launch_share = 0.5;
  double extra_traffic_ratio = 1.25;
  double roofline_fraction = 0.8;
};

struct diagnosis_input {
  const npu::eval_result* result = nullptr;  // may be null or not ok: static signals only
  std::string kernel;
  uint64_t io_bytes = 0;      // op_spec::io_bytes(); 0 = unknown
  uint32_t tensor_count = 0;  // inputs + outputs; 0 = unknown (3 assumed)
};

struct heuristic_diagnosis {
  std::string query;
  std::vector<std::string> tags;
  std::vector<std::string> evidence;  // one line per signal, with the numbers behind it

  diagnosis as_diagnosis() const { return {query, tags}; }
};

class heuristic_diagnoser {
 public:
  explicit heuristic_diagnoser(diagnoser_options options = {});

  std::string name() const { return "heuristic-diagnoser"; }
  heuristic_diagnosis diagnose(const diagnosis_input& input) const;

 private:
  diagnoser_options options_;
};

// Static signals of a kernel text, exposed for tests and the rewinder.
struct kernel_signals {
  uint32_t full_barriers_in_loops = 0;
  uint32_t scalar_accesses_in_loops = 0;
  uint32_t single_buffer_queues = 0;  // TQue InitBuffer calls with num 1 plus buffer constants of 1
  uint32_t data_copies = 0;           // DataCopy / DataCopyPad call sites
};
kernel_signals read_kernel_signals(const std::string& kernel);

}  // namespace aopt::agent
