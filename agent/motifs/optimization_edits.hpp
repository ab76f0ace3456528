// The edits of the motif library's optimizations (motif_library.hpp), one function per motif:
// each recognises the pattern its de-optimization (rewind_edits.hpp) produces and, where the text
// allows, the same motif written by hand, and computes the edits that cure it; no edits means the
// kernel does not show the pattern. By rule name:
//
//   single_to_double_buffer  InitBuffer(queue, 1, ...) or InitBuffer(queue, <runtime count>, ...)
//                            (a tiling field such as bufferNum) -> 2 for TQue/TQueBind queues
//                            but the cube's, buffer/slot-count constants equal to 1 -> 2
//   l1_single_to_double_buffer  the same for the cube's A1/B1 (L1) queues only
//   (double buffering's depth) InitBuffer(queue, 2, ...) and buffer/slot-count constants equal
//                            to 2, each edited to "2": where a kernel already double-buffers,
//                            the queue-depth parameter rewrites these into deeper queues
//   remove_stage_barriers    PipeBarrier<PIPE_ALL>() right after a stage call in a loop, when
//                            the kernel's queues (EnQue/DeQue) or its SetFlag/WaitFlag pairs
//                            already order the stages
//   scalar_loop_to_vector    `for (i = 0; i < n; i++) d.SetValue(i, a.GetValue(i) op b...)`
//                            (op + - * /, max/min through two temporaries, or a loop-invariant
//                            scalar expression with + or *; static_cast wrappers are looked
//                            through)
//                            -> Add/Sub/Mul/Div/Max/Min or Adds/Muls/Maxs/Mins; adjacent
//                            PipeBarrier<PIPE_ALL>() become PipeBarrier<PIPE_V>() (or go when
//                            another barrier is next to them)
//   merge_chunked_copies     `for (o = 0; o < n; o += c) DataCopy(d[... + o], s[... + o], ...)`
//                            -> one DataCopy of n elements
//   enlarge_tile             a shrunk tile `(t >= 256 ? t / 256 * 64 : t)` / `(r >= 4 ? r / 4 : r)`
//                            -> t / r; otherwise a hard-coded tile-size constant doubles
//   (ub_sized_tiles' split)  `this->tile = hostTile;` (a tile size or rows per tile) where the
//                            kernel counts its tiles by a ceiling division by the member ->
//                            `(hostTile >= 32n ? hostTile / n / 32 * 32 : hostTile)`, rows
//                            `(hostRows >= n ? hostRows / n : hostRows)`: each host tile is
//                            processed in n kernel steps, and the ceiling count still covers all
//   naive_to_balanced_split  `off = b * tailLen; len = tailLen;` followed in the same block by
//                            the last core's remainder (`if (b + 1 == GetBlockNum()) { len =
//                            total - off; }`) -> the former/tail if/else, when the function
//                            has parameters formerNum and formerLen (tailLen with "tail" ->
//                            "former")
//   full_barrier_to_flags    PipeBarrier<PIPE_ALL>() between code on pipe P and code on pipe Q
//                            -> PipeBarrier<PIPE_P>() when P == Q (V, MTE2, MTE3), else
//                            SetFlag/WaitFlag<HardEvent::P_Q> with an id from FetchEventID; at
//                            the end of a loop body Q is the body's first pipe (next iteration)
//   remove_gm_round_trip     DataCopy(g, l, n); barrier; DataCopy(l, g, n); barrier;
//                            DataCopy(g, l, n) -> the first copy only
//
//   divide_to_reciprocal_multiply
//                            `Div(d, a, t, n)` whose divisor t a Duplicate(t, v, m) of the same
//                            block filled -> `Muls(d, a, static_cast<float>(1) / (v), n)` (or v'
//                            when v is `static_cast<float>(1) / (v')`); the Duplicate goes when
//                            nothing after the Div reads t (with the vector barrier between the
//                            two when it is the de-optimization's form)
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> double_buffer_edits(const kernel_facts& f);
std::vector<text_edit> double_buffer_depth_edits(const kernel_facts& f);
// The cube's L1 operand queues (A1/B1) with one buffer, or a runtime count, given two.
std::vector<text_edit> l1_double_buffer_edits(const kernel_facts& f);
std::vector<text_edit> stage_barrier_edits(const kernel_facts& f);
std::vector<text_edit> vectorize_edits(const kernel_facts& f);
std::vector<text_edit> merge_copy_edits(const kernel_facts& f);
std::vector<text_edit> enlarge_tile_edits(const kernel_facts& f);
std::vector<text_edit> tile_split_edits(const kernel_facts& f, int parts);
std::vector<text_edit> balanced_split_edits(const kernel_facts& f);
std::vector<text_edit> barrier_flag_edits(const kernel_facts& f);
std::vector<text_edit> round_trip_removal_edits(const kernel_facts& f);
std::vector<text_edit> reciprocal_edits(const kernel_facts& f);

}  // namespace aopt::agent
