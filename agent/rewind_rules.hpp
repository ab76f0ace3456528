// The heuristic rewind library: rule-based de-optimizations of expert kernels, each removing
// one optimization motif (ascendc-reference.md §6) while keeping the kernel correct. The
// rewinder applies them one per step to build a slow-to-fast trajectory; the heuristic refiner
// applies their counterparts (optimization_rules.hpp) in the forward direction.
//
//   double_to_single_buffer  InitBuffer(queue, N>1, ...) -> 1, buffer/slot-count constants -> 1
//   add_full_barriers        PipeBarrier<PIPE_ALL>() after every stage call of a Process loop
//   vector_to_scalar         the first count-form Add/Sub/Mul/Div/Max/Min or Adds/Muls/Maxs/Mins
//                            on whole local tensors -> a GetValue/SetValue loop fenced by
//                            PipeBarrier<PIPE_ALL>()
//   chunked_copies           every count-form DataCopy -> a loop of 256-byte DataCopy chunks
//   small_tile               a hard-coded tile-size constant -> a quarter (multiple of 64), or
//                            the tile member assignment `this->tileLength = tileLength;` ->
//                            a quarter rounded to 64 elements
//   balanced_to_naive_split  the former/tail split `if (b < formerNum) { off = b * formerLen;
//                            len = formerLen; } else { off = formerNum * formerLen + (b -
//                            formerNum) * tailLen; len = tailLen; }` -> `off = b * tailLen;
//                            len = tailLen;`, only when a later statement of the same block
//                            gives the last core the remainder (`if (b + 1 == GetBlockNum())
//                            { len = total - off; }`), which keeps the naive split correct
//   flags_to_full_barriers   SetFlag removed, every WaitFlag -> PipeBarrier<PIPE_ALL>()
//   extra_gm_round_trip      the first count-form copy-out DataCopy(gm, local, n) is followed by
//                            a read back into UB and a second write (a redundant GM round trip)
//
// Thread-safety: the library is immutable.
#pragma once

#include <string>
#include <vector>

#include "agent/kernel_rule.hpp"

namespace aopt::agent {

// The rules in the order above.
const std::vector<kernel_rule>& rewind_rules();

// The rule called `name`, nullptr when there is none.
const kernel_rule* find_rewind_rule(const std::string& name);

}  // namespace aopt::agent
