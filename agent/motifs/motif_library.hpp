// The motif library: the optimization practices of docs/ascendc-reference.md §6 that the heuristic
// policies know, each defined once with both directions, so that the rewind (bank building) and
// the refiner cannot drift apart. The order below is the rewind's (bank_rewind.hpp applies the
// de-optimizations in turn): invariant hoisting comes before large bursts, which would chunk the
// very load it moves.
//
//   motif               de-optimization (rewind)   optimization (refinement)
//   double_buffering    double_to_single_buffer    single_to_double_buffer
//   l1_double_buffering l1_double_to_single_buffer l1_single_to_double_buffer
//   l0c_accumulation    l0c_to_per_step_fixpipe    per_step_fixpipe_to_l0c
//   l1_resident_operand resident_to_reloaded_operand reloaded_to_resident_operand
//   fixpipe_epilogue    fixpipe_relu_to_gm_pass    gm_pass_to_fixpipe_relu
//   stage_barriers      add_full_barriers          remove_stage_barriers
//   invariant_hoisting  invariant_into_loop        hoist_invariant_load
//   vectorization       vector_to_scalar           scalar_loop_to_vector
//   large_bursts        chunked_copies             merge_chunked_copies
//   ub_sized_tiles      small_tile                 enlarge_tile
//   balanced_split      balanced_to_naive_split    naive_to_balanced_split
//   grid_core_split     grid_to_line_split         line_to_grid_split
//   fine_grained_sync   flags_to_full_barriers     full_barrier_to_flags
//   fused_passes        extra_gm_round_trip        remove_gm_round_trip
//   reciprocal_multiply multiply_to_divide         divide_to_reciprocal_multiply
//   vector_index_fill   index_fill_to_scalar_loop  scalar_index_fill_to_vector
//
// The edits of each direction are in rewind_edits.hpp and optimization_edits.hpp (both
// directions of invariant hoisting in invariant_hoisting_edits.hpp, of the cube's L0C
// accumulation, L1 residency and fixpipe epilogue in l0c_accumulation_edits.hpp,
// l1_residency_edits.hpp and fixpipe_epilogue_edits.hpp); the tuple
// fields (title, description, bottleneck, tags) come from the motif, and each rule names the
// other as its counterpart. An optimization rule also lists its variants: the same motif with
// its free parameters varied (one site at a time when it edits several, queue depth 3 and 4,
// the tile enlarged twice), which the refiner offers as further candidates.
//
// Rules match a kernel's structure rather than its spelling (issue 35): a queue depth is the
// constant a queue's InitBuffer takes as its num, whatever its name; a barrier is a barrier
// however it is written (PipeBarrier<PIPE_X>(), AscendC::..., pipe_barrier(PIPE_X)); an index
// fill is a SetValue loop writing its index into a local tensor, whatever the loop variable and
// the tensor are called and however the index is cast. Each rule says what structure it looks
// for (kernel_rule::looks_for), so a reason can name what a kernel did not show.
//
// Not covered yet (§6): UB buffer reuse to enlarge tiles (TQueBind), and invariant work inside
// member functions called from the loop (a gamma copied in every CopyIn); only an LLM refiner
// can propose those.
//
// Thread-safety: the library is immutable.
#pragma once

#include <string>
#include <vector>

#include "agent/motifs/kernel_rule.hpp"

namespace aopt::agent {

struct motif {
  std::string name;
  kernel_rule deoptimize;  // removes the motif from a fast kernel (rewind)
  kernel_rule optimize;    // puts it into a slow kernel (refinement)
};

// The motifs in the order above.
const std::vector<motif>& motifs();

// The motif called `name`, nullptr when there is none.
const motif* find_motif(const std::string& name);

}  // namespace aopt::agent
