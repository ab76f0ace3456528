#include "agent/motifs/bottleneck_phrases.hpp"

#include <map>

namespace aopt::agent {

namespace {

const std::map<std::string, std::string>& phrases() {
  static const std::map<std::string, std::string> table = {
      {"mte2_bound", "MTE2 bound: copy-in from GM to UB on the MTE2 pipe dominates the core time."},
      {"mte3_bound",
       "MTE3 bound: copy-out from UB to GM on the MTE3 pipe dominates the core time."},
      {"vector_bound", "Vector bound: the vector pipe is busy most of the core time."},
      {"no_overlap",
       "No overlap between MTE2 copy-in, vector compute and MTE3 copy-out: single buffering "
       "serializes the pipes, double buffering is missing."},
      {"scalar_heavy",
       "Scalar heavy: element-wise GetValue/SetValue loops run on the scalar pipe instead of "
       "vector instructions."},
      {"barrier_stall",
       "Barrier stall: PipeBarrier<PIPE_ALL> full barriers drain every pipe and stall issue "
       "inside the hot loop."},
      {"core_underuse",
       "Core underuse: the block dim is below the number of AI cores, cores stay idle."},
      {"core_imbalance",
       "Core imbalance: some cores get more work than others, the slowest core sets the "
       "latency."},
      {"small_bursts",
       "Small DMA bursts: many short DataCopy transfers far below 16 KiB pay the per-burst "
       "overhead."},
      {"ub_underuse",
       "UB underuse: small tiles fill a fraction of the unified buffer, many loop iterations "
       "and short transfers."},
      {"launch_bound",
       "Launch bound: kernel launch overhead dominates a microsecond-scale operator."},
      {"extra_gm_traffic",
       "Extra GM traffic: data makes a round trip through global memory instead of staying in "
       "UB, more bytes moved than the inputs and outputs need."},
      {"near_roofline", "Near roofline: latency is close to the memory or vector bound."},
      {"mte1_bound",
       "MTE1 bound: moving cube operands from L1 into L0A/L0B (LoadData) dominates the core "
       "time."},
      {"cube_bound", "Cube bound: the cube unit (Mmad) is busy most of the core time."},
      {"fixpipe_bound",
       "Fixpipe bound: moving results out of L0C through the fixpipe dominates the core time."},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& bottleneck_tags() {
  static const std::vector<std::string> tags = {
      "mte2_bound",    "mte3_bound",    "vector_bound",  "no_overlap",
      "scalar_heavy",  "barrier_stall", "core_underuse", "core_imbalance",
      "small_bursts",  "ub_underuse",   "launch_bound",  "extra_gm_traffic",
      "near_roofline", "mte1_bound",    "cube_bound",    "fixpipe_bound"};
  return tags;
}

std::string bottleneck_phrase(const std::string& tag) {
  auto it = phrases().find(tag);
  return it == phrases().end() ? std::string() : it->second;
}

std::string bottleneck_text(const std::vector<std::string>& tags) {
  std::string text;
  for (const std::string& tag : tags) {
    std::string p = bottleneck_phrase(tag);
    if (p.empty()) continue;
    if (!text.empty()) text += ' ';
    text += p;
  }
  return text;
}

}  // namespace aopt::agent
