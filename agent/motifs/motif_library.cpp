#include "agent/motifs/motif_library.hpp"

#include <functional>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"
#include "agent/motifs/bottleneck_phrases.hpp"
#include "agent/motifs/copy_ahead_edits.hpp"
#include "agent/motifs/core_split_edits.hpp"
#include "agent/motifs/fixpipe_epilogue_edits.hpp"
#include "agent/motifs/index_fill_edits.hpp"
#include "agent/motifs/invariant_hoisting_edits.hpp"
#include "agent/motifs/l0c_accumulation_edits.hpp"
#include "agent/motifs/l1_residency_edits.hpp"
#include "agent/motifs/optimization_edits.hpp"
#include "agent/motifs/rewind_edits.hpp"

namespace aopt::agent {

namespace {

using edits_fn = std::vector<text_edit> (*)(const kernel_facts&);
// A free parameter of an optimization: its full edits rewritten into another outcome.
using parameter_fn = std::function<std::vector<text_edit>(std::vector<text_edit>)>;

struct parameter {
  std::string label;
  parameter_fn rewrite;
};

using retune_fn = std::vector<rule_variant> (*)(const std::string& kernel);

// One motif as written in the table below.
struct motif_spec {
  std::string name;
  std::string category;
  std::string title;
  std::string description;  // what the fast kernel does and why it is faster
  std::vector<std::string> tags;
  std::string slow_symptom;        // how the slow kernel shows it, added to the rewind's bottleneck
  std::string rewind_looks_for;    // the structure the de-optimization edits
  std::string optimize_looks_for;  // the structure the optimization edits
  std::string rewind_name;
  edits_fn rewind;
  std::string optimize_name;
  std::string optimize_summary;
  edits_fn optimize;
  std::vector<parameter> parameters = {};
  bool repeatable = false;  // applying the optimization again goes further (a larger tile)
  // Where a kernel already has the optimization: its free parameter varied (kernel_rule::retunes).
  retune_fn retune = nullptr;
};

result<std::string> edit(const std::string& kernel, edits_fn fn, const std::string& rule) {
  std::vector<text_edit> edits = fn(kernel_facts(kernel));
  if (edits.empty()) return failed_precondition("rule " + rule + " does not apply");
  return apply_edits(kernel, std::move(edits));
}

kernel_rule rule_of(const motif_spec& m, const std::string& name, const std::string& description,
                    const std::string& bottleneck, const std::string& counterpart,
                    const std::string& looks_for, edits_fn fn) {
  kernel_rule r{name,        m.category, m.title, description, bottleneck, m.tags,
                counterpart, looks_for,  {},      {},          {},         {}};
  r.applies = [fn](const std::string& kernel) { return !fn(kernel_facts(kernel)).empty(); };
  r.apply = [fn, name](const std::string& kernel) { return edit(kernel, fn, name); };
  return r;
}

// Variants of an optimization: each site alone when it edits several (which barrier leaves,
// which loop is merged), each parameter, and the optimization applied twice when repeatable.
std::vector<rule_variant> variants_of(const std::string& kernel, edits_fn fn,
                                      const std::vector<parameter>& parameters, bool repeatable) {
  constexpr size_t max_sites = 6;
  std::vector<rule_variant> out;
  std::vector<text_edit> edits = fn(kernel_facts(kernel));
  if (edits.empty()) return out;
  for (const parameter& p : parameters) {
    out.push_back({p.label, apply_edits(kernel, p.rewrite(edits))});
  }
  if (edits.size() > 1 && edits.size() <= max_sites) {
    for (size_t i = 0; i < edits.size(); ++i) {
      out.push_back({"site " + std::to_string(i + 1) + " of " + std::to_string(edits.size()),
                     apply_edits(kernel, {edits[i]})});
    }
  }
  if (repeatable) {
    std::string once = apply_edits(kernel, edits);
    std::vector<text_edit> again = fn(kernel_facts(once));
    if (!again.empty()) out.push_back({"applied twice", apply_edits(once, std::move(again))});
  }
  return out;
}

motif build(const motif_spec& m) {
  const std::string base = bottleneck_text(m.tags);
  motif out;
  out.name = m.name;
  out.deoptimize = rule_of(m, m.rewind_name, m.description,
                           m.slow_symptom.empty() ? base : base + " " + m.slow_symptom,
                           m.optimize_name, m.rewind_looks_for, m.rewind);
  out.optimize = rule_of(m, m.optimize_name, m.optimize_summary, base, m.rewind_name,
                         m.optimize_looks_for, m.optimize);
  edits_fn fn = m.optimize;
  std::vector<parameter> parameters = m.parameters;
  bool repeatable = m.repeatable;
  out.optimize.variants = [fn, parameters, repeatable](const std::string& kernel) {
    return variants_of(kernel, fn, parameters, repeatable);
  };
  if (m.retune != nullptr) out.optimize.retunes = m.retune;
  return out;
}

// Queue depth beyond double buffering: every buffer count the edits set to 2 set to `n`.
parameter queue_depth(int n) {
  return {"depth " + std::to_string(n), [n](std::vector<text_edit> edits) {
            for (text_edit& e : edits) {
              if (e.replacement == "2") e.replacement = std::to_string(n);
            }
            return edits;
          }};
}

// Double buffering's depth where the queues double-buffer already: 3 and 4 buffers.
std::vector<rule_variant> deeper_queues(const std::string& kernel) {
  std::vector<rule_variant> out;
  const std::vector<text_edit> sites = double_buffer_depth_edits(kernel_facts(kernel));
  if (sites.empty()) return out;
  for (int n : {3, 4}) {
    out.push_back(
        {"depth " + std::to_string(n), apply_edits(kernel, queue_depth(n).rewrite(sites))});
  }
  return out;
}

// The tile's share where the kernel takes the host's whole tile: each host tile in 2, 4 or 8
// steps (finer steps overlap more of one tile's copies with another's compute). A smaller host
// tile does the same, so these are tiling-equivalent.
std::vector<rule_variant> split_tiles(const std::string& kernel) {
  std::vector<rule_variant> out;
  const kernel_facts facts(kernel);
  for (int n : {2, 4, 8}) {
    std::vector<text_edit> edits = tile_split_edits(facts, n);
    if (!edits.empty())
      out.push_back({"split in " + std::to_string(n), apply_edits(kernel, std::move(edits)), true});
  }
  return out;
}

std::vector<motif> build_library() {
  std::vector<motif_spec> specs = {
      {"double_buffering",
       "pipelining",
       "Double buffering overlaps copy-in, compute and copy-out",
       "Give every TQue two buffers (InitBuffer num 2, BUFFER_NUM 2) so MTE2 loads tile i+1 while "
       "the vector unit computes tile i and MTE3 stores tile i-1; with one buffer per queue each "
       "stage waits for the previous one to release it.",
       {"no_overlap", "mte2_bound"},
       "Queues are initialised with a single buffer (InitBuffer num 1, BUFFER_NUM 1).",
       "a queue (TQue, TQueBind) whose InitBuffer takes two or more buffers",
       "a queue (TQue, TQueBind) whose InitBuffer takes one buffer or a runtime count",
       "double_to_single_buffer",
       single_buffer_edits,
       "single_to_double_buffer",
       "Give every queue two buffers so loads, compute and stores of consecutive tiles overlap.",
       double_buffer_edits,
       {queue_depth(3), queue_depth(4)},
       false,
       deeper_queues},
      {"l1_double_buffering",
       "pipelining",
       "Double-buffer the cube's L1 operands",
       "Give the A1 and B1 queues two buffers so MTE2 brings the next K step's operands into L1 "
       "while MTE1 and the cube work on the current ones; with one L1 buffer per operand every "
       "GM load waits until the previous step's Mmad has released it.",
       {"no_overlap", "mte2_bound"},
       "The cube's A1/B1 (L1) queues are initialised with a single buffer.",
       "an A1/B1 (L1) queue with two buffers",
       "an A1/B1 (L1) queue with one buffer or a runtime count",
       "l1_double_to_single_buffer",
       l1_single_buffer_edits,
       "l1_single_to_double_buffer",
       "Give the A1/B1 (L1) queues two buffers so operand loads overlap the cube's work.",
       l1_double_buffer_edits},
      {"l0c_accumulation",
       "pipelining",
       "Accumulate the K steps in L0C, one fixpipe per tile",
       "Let every Mmad after a tile's first accumulate into the same L0C (CO1) tensor "
       "(cmatrixInitVal only on the first K step) and move the tile out once: a fixpipe per K "
       "step writes each partial sum to GM and adds it there with an atomic read-modify-write, "
       "K / baseK times the output traffic, and the cube waits for each fixpipe to free L0C.",
       {"extra_gm_traffic", "fixpipe_bound"},
       "Every K step of a tile starts a new L0C sum and fixpipes it into GM under "
       "SetAtomicAdd.",
       "a CO1 tensor allocated before a K loop that passes it the flag `s == 0`, queued and "
       "copied out after the loop",
       "a K loop whose body allocates a CO1 tensor, multiplies with the flag `true` and copies "
       "it out under SetAtomicAdd",
       "l0c_to_per_step_fixpipe",
       per_step_fixpipe_edits,
       "per_step_fixpipe_to_l0c",
       "Allocate the CO1 tensor before the K loop, pass `s == 0` as the init flag and fixpipe "
       "once after the loop, without atomics.",
       l0c_accumulation_edits},
      {"l1_resident_operand",
       "memory",
       "Keep an operand's NZ block resident in L1",
       "Load an operand block that every iteration of a loop reads unchanged (a row panel of a "
       "for all the column tiles of c) into L1 once, converted ND -> NZ on the way, and keep it "
       "there for the whole loop: reloading it in every iteration repeats its GM traffic and "
       "its layout conversion, and the cube waits for each reload.",
       {"extra_gm_traffic", "mte2_bound"},
       "Every iteration loads the same operand block from GM into L1 and converts it to NZ "
       "again.",
       "an L1 operand loaded and dequeued before a loop and freed after it",
       "a loop body that starts by loading and dequeuing an L1 operand its load does not vary "
       "and ends by freeing it",
       "resident_to_reloaded_operand",
       reload_operand_edits,
       "reloaded_to_resident_operand",
       "Load and dequeue the L1 operand before the loop and free it after, instead of in every "
       "iteration.",
       resident_operand_edits},
      {"fixpipe_epilogue",
       "fusion",
       "Fuse the ReLU epilogue into the fixpipe",
       "Let the fixpipe apply the ReLU (reluEn) while it moves the tile out of L0C: writing the "
       "raw product to GM and passing over it again reads and rewrites every element through "
       "GM, one scalar access at a time, after a full barrier.",
       {"extra_gm_traffic", "scalar_heavy"},
       "Each tile is written to GM raw, then read back element by element and clamped at zero.",
       "a Fixpipe into GM whose params enable ReLU",
       "a Fixpipe into GM followed by a GetValue/SetValue loop that clamps its tile at zero",
       "fixpipe_relu_to_gm_pass",
       gm_epilogue_edits,
       "gm_pass_to_fixpipe_relu",
       "Enable reluEn in the Fixpipe params and drop the pass that clamps the tile in GM.",
       fused_epilogue_edits},
      {"copy_in_ahead",
       "pipelining",
       "Issue the next tile's copy-in before computing the current one",
       "Where the compute stage makes the scalar unit wait for the vector unit (a row's "
       "reduction read back with GetValue, a V_S flag), call the load stage for tile i + 1 "
       "before computing tile i (and for tile 0 before the loop): the scalar unit issues the "
       "copy-in first, so MTE2 brings the next tile in while the vector unit works. In order, "
       "the next copy-in is issued only after the current tile is computed, and MTE2 and the "
       "vector unit take turns however many buffers the queues have.",
       {"no_overlap", "scalar_heavy"},
       "The scalar unit waits for each tile's vector results before it issues the next tile's "
       "copy-in, so loads and compute do not overlap.",
       "a load stage called for tile 0 before the loop and for tile i + 1 at the top of its body",
       "a tile loop that calls a load stage (MTE2 only, enqueues into queues of two or more "
       "buffers, writes no member and reads none that the later stages set) after "
       "side-effect-free declarations, before stages where a scalar access follows vector work",
       "ahead_to_in_order_copy_in",
       in_order_copy_in_edits,
       "issue_copy_in_ahead",
       "Call the load stage for tile 0 before the loop and for tile i + 1 at the top of the loop "
       "body, before the compute of tile i.",
       copy_in_ahead_edits},
      {"stage_barriers",
       "synchronization",
       "Remove full barriers between pipeline stages",
       "The queues' EnQue/DeQue already order CopyIn, Compute and CopyOut; a "
       "PipeBarrier<PIPE_ALL>() after each stage drains every pipe and keeps the stages of "
       "consecutive tiles from overlapping.",
       {"barrier_stall", "no_overlap"},
       "A PipeBarrier<PIPE_ALL> follows every stage call of the Process loop.",
       "a Process loop calling stage member functions",
       "a full barrier right after a stage call in a loop of a kernel ordered by queues or flags",
       "add_full_barriers",
       full_barrier_edits,
       "remove_stage_barriers",
       "Drop PipeBarrier<PIPE_ALL>() after stage calls; the queues already order the stages.",
       stage_barrier_edits},
      {"invariant_hoisting",
       "memory",
       "Load loop-invariant data once, before the loop",
       "Copy data that every iteration reads unchanged (a bias, a gamma, a table) into UB once "
       "before the tile loop: reloading it in every iteration repeats its GM traffic, and the "
       "full barriers that keep the reload from racing the previous iteration's reads stall every "
       "pipe once per tile.",
       {"extra_gm_traffic", "barrier_stall"},
       "Every iteration of the tile loop reloads the same data from GM between full barriers.",
       "a GM load before a tile loop whose data every iteration reads",
       "a GM load in a loop that reads the same data in every iteration",
       "invariant_into_loop",
       invariant_reload_edits,
       "hoist_invariant_load",
       "Move a load that reads the same data in every iteration before the loop (or drop it when "
       "the same load already precedes the loop), with its full barriers.",
       hoist_invariant_edits},
      {"vectorization",
       "vectorization",
       "Vectorize an element-wise scalar loop",
       "Replace the GetValue/SetValue loop with one count-form vector instruction (Add, Mul, "
       "Adds, Muls, ...) that processes 256 bytes per repeat; scalar element accesses are orders "
       "of magnitude slower and need full barriers around them.",
       {"scalar_heavy"},
       "An element-wise loop reads operands with GetValue and writes results with SetValue.",
       "a count-form element-wise vector call on whole local tensors",
       "a counted loop whose body computes one element with GetValue and writes it with SetValue",
       "vector_to_scalar",
       scalar_loop_edits,
       "scalar_loop_to_vector",
       "Replace a GetValue/SetValue loop by one count-form vector instruction.",
       vectorize_edits},
      {"large_bursts",
       "memory",
       "Copy whole tiles with one DataCopy",
       "Move a tile with a single DataCopy of the full count instead of a loop of 256-byte "
       "chunks: every DMA burst pays a fixed overhead, and peak bandwidth needs transfers of "
       "16 KiB or more.",
       {"small_bursts", "mte2_bound"},
       "DataCopy is issued in a loop of small chunks.",
       "a count-form DataCopy",
       "a loop of DataCopy chunks over one transfer",
       "chunked_copies",
       chunked_copy_edits,
       "merge_chunked_copies",
       "Replace a loop of small DataCopy chunks by one DataCopy of the whole count.",
       merge_copy_edits},
      {"ub_sized_tiles",
       "tiling",
       "Fill the UB with larger tiles",
       "Size tiles to the UB capacity: fewer loop iterations, longer DMA transfers and fewer "
       "per-tile synchronizations.",
       {"ub_underuse", "small_bursts"},
       "",
       "a tile-size constant or a tile member set from the host",
       "a shrunk tile expression or a hard-coded tile-size constant",
       "small_tile",
       small_tile_edits,
       "enlarge_tile",
       "Undo a shrunk tile, or double a hard-coded tile-size constant.",
       enlarge_tile_edits,
       {},
       true,
       split_tiles},
      {"balanced_split",
       "multicore",
       "Balance the multi-core split with former and tail cores",
       "Split the elements so that every core gets the same number of aligned blocks and the "
       "first formerNum cores one block more (former/tail split); a naive split gives each core "
       "the tail share and leaves the whole remainder to the last core, whose longer run sets "
       "the kernel latency.",
       {"core_imbalance"},
       "Every core takes blockIdx * tailLength and the last core takes the remainder.",
       "a former/tail split of the elements between cores",
       "a naive split that leaves the remainder to the last core",
       "balanced_to_naive_split",
       naive_split_edits,
       "naive_to_balanced_split",
       "Give the first formerNum cores formerLength elements and the others tailLength instead "
       "of leaving the whole remainder to the last core.",
       balanced_split_edits},
      {"grid_core_split",
       "multicore",
       "Spread a grid of tiles over the cores tile by tile",
       "Walk the tile grid (a matmul's baseM x baseN tiles of c, rows x tiles of a vector "
       "kernel) as one flattened index that the cores take round-robin: every core gets "
       "tiles / cores of them, rounded up. Handing out whole columns (or rows) of the grid "
       "instead leaves cores idle when the grid has fewer columns than there are cores, and "
       "each busy core runs a whole column.",
       {"core_imbalance", "core_underuse"},
       "The cores take whole columns of the tile grid, fewer columns than cores.",
       "a core-strided loop over a flattened tile grid that reads the tile's line and column "
       "as t / D and t % D",
       "a core-strided loop whose whole body is a counted loop over the other grid axis",
       "grid_to_line_split",
       line_split_edits,
       "line_to_grid_split",
       "Flatten the core-strided loop and its inner loop into one core-strided loop over the "
       "whole tile grid.",
       grid_split_edits},
      {"fine_grained_sync",
       "synchronization",
       "Fine-grained SetFlag/WaitFlag instead of full barriers",
       "Order only the two pipes that depend on each other with SetFlag/WaitFlag on a HardEvent "
       "(MTE2_V, V_MTE3, V_S, ...); PipeBarrier<PIPE_ALL>() waits for every pipe and serializes "
       "independent work.",
       {"barrier_stall"},
       "Full barriers stand where one pipe waits for another.",
       "SetFlag/WaitFlag pairs",
       "a full barrier between code on two known pipes",
       "flags_to_full_barriers",
       flag_barrier_edits,
       "full_barrier_to_flags",
       "Replace PipeBarrier<PIPE_ALL>() by a flag between the two pipes that depend on each "
       "other.",
       barrier_flag_edits},
      {"fused_passes",
       "fusion",
       "Keep intermediate data in UB, no GM round trip",
       "Write each result to GM once: writing, reading back and rewriting through global memory "
       "doubles MTE2/MTE3 traffic and adds full barriers; fused computation keeps data in the "
       "unified buffer.",
       {"extra_gm_traffic", "mte3_bound"},
       "",
       "a count-form copy of a local tensor to GM",
       "a GM write read back and written again between full barriers",
       "extra_gm_round_trip",
       round_trip_edits,
       "remove_gm_round_trip",
       "Drop a redundant read-back and rewrite of data already written to GM.",
       round_trip_removal_edits},
      {"reciprocal_multiply",
       "vectorization",
       "Multiply by the reciprocal instead of dividing",
       "Divide by a scalar as one Muls by its reciprocal, computed once on the scalar unit: a "
       "vector Div costs several times a multiply per repeat, and the Duplicate that fills a "
       "divisor tile is a whole extra vector pass.",
       {"vector_bound"},
       "A Duplicate fills a tile with one scalar that a vector Div then divides by.",
       "a float Muls into another tensor",
       "a Div by a tensor a Duplicate of one scalar filled",
       "multiply_to_divide",
       divide_edits,
       "divide_to_reciprocal_multiply",
       "Replace Div by a Duplicate-filled tile with Muls by the scalar's reciprocal.",
       reciprocal_edits},
      {"vector_index_fill",
       "vectorization",
       "Fill an index tensor with CreateVecIndex",
       "Fill a local tensor with consecutive indices (the positions a sort, top-k or gather "
       "carries along) by one CreateVecIndex on the vector unit: a scalar SetValue per element "
       "costs a scalar instruction and a UB store each, and the vector work that reads the "
       "indices waits for the whole scalar loop.",
       {"scalar_heavy"},
       "A loop writes each index into a local tensor with SetValue.",
       "a CreateVecIndex on a local tensor of half, float, int16_t or int32_t",
       "a counted loop whose only statement writes its index (plus an invariant start) into a "
       "local tensor with SetValue",
       "index_fill_to_scalar_loop",
       scalar_index_fill_edits,
       "scalar_index_fill_to_vector",
       "Replace a SetValue loop writing consecutive indices by one CreateVecIndex.",
       vector_index_fill_edits},
  };
  std::vector<motif> out;
  for (const motif_spec& m : specs) out.push_back(build(m));
  return out;
}

}  // namespace

const std::vector<motif>& motifs() {
  static const std::vector<motif> library = build_library();
  return library;
}

const motif* find_motif(const std::string& name) {
  for (const motif& m : motifs()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace aopt::agent
