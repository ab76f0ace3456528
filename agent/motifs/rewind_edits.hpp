// The edits of the motif library's de-optimizations (motif_library.hpp), one function per
// motif: each computes, from a kernel's facts, the text edits that remove the motif from an
// expert kernel while keeping it correct; no edits means the motif is absent.
//
//   single_buffer_edits   InitBuffer(queue, N>1, ...) -> 1 for every queue but the cube's,
//                         buffer/slot-count constants -> 1
//   l1_single_buffer_edits  InitBuffer(A1/B1 queue, 2, ...) -> 1
//   full_barrier_edits    PipeBarrier<PIPE_ALL>() after every stage call of a Process loop
//   scalar_loop_edits     the first count-form Add/Sub/Mul/Div/Max/Min or Adds/Muls/Maxs/Mins on
//                         whole local tensors -> a GetValue/SetValue loop fenced by
//                         PipeBarrier<PIPE_ALL>()
//   chunked_copy_edits    every count-form DataCopy -> a loop of 256-byte DataCopy chunks
//   small_tile_edits      a hard-coded tile-size constant -> a quarter (multiple of 64), or the
//                         tile member assignment `this->tileLength = tileLength;` -> a quarter
//                         rounded to 64 elements
//   naive_split_edits     the former/tail split -> `off = b * tailLen; len = tailLen;`, only
//                         when a later statement of the same block gives the last core the
//                         remainder (`if (b + 1 == GetBlockNum()) { len = total - off; }`)
//   flag_barrier_edits    SetFlag removed, every WaitFlag -> PipeBarrier<PIPE_ALL>()
//   round_trip_edits      the first count-form copy-out DataCopy(gm, local, n) is followed by a
//                         read back into UB and a second write (a redundant GM round trip)
//   divide_edits          the first float `Muls(d, s, v, n)` with d other than s ->
//                         `Duplicate(d, static_cast<float>(1) / (v), n); PipeBarrier<PIPE_V>();
//                         Div(d, s, d, n);` (a division where a multiply by the reciprocal does)
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> single_buffer_edits(const kernel_facts& f);
// The cube's L1 operand queues (A1/B1) with two buffers given one.
std::vector<text_edit> l1_single_buffer_edits(const kernel_facts& f);
std::vector<text_edit> full_barrier_edits(const kernel_facts& f);
std::vector<text_edit> scalar_loop_edits(const kernel_facts& f);
std::vector<text_edit> chunked_copy_edits(const kernel_facts& f);
std::vector<text_edit> small_tile_edits(const kernel_facts& f);
std::vector<text_edit> naive_split_edits(const kernel_facts& f);
std::vector<text_edit> flag_barrier_edits(const kernel_facts& f);
std::vector<text_edit> round_trip_edits(const kernel_facts& f);
std::vector<text_edit> divide_edits(const kernel_facts& f);

}  // namespace aopt::agent
