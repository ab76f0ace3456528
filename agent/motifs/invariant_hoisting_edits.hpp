// Both directions of the invariant-hoisting motif (motif_library.hpp): work that gives the same
// result in every iteration of a loop belongs before the loop. The motif covers the invariant
// load, `DataCopy(local, gm, n)` of a whole global tensor whose operands the loop never changes
// (a bias, a gamma, a table), the common form in operator sources.
//
//   invariant_reload_edits  (rewind) the first invariant load before a loop that reads its
//                           local tensor -> the same load again at the top of every iteration,
//                           fenced by PipeBarrier<PIPE_ALL>() on both sides (the previous
//                           iteration's vector reads finish before MTE2 overwrites the tensor,
//                           and the load lands before this iteration reads it)
//   hoist_invariant_edits   (optimization) an invariant load at the top level of a loop body,
//                           with the full barriers next to it: when the same load already
//                           precedes the loop, the reload and its barriers go; otherwise the
//                           load moves before the loop followed by one PipeBarrier<PIPE_ALL>(),
//                           when its local tensor is declared before the loop and no AscendC
//                           API call in the loop writes it
//
// A load is invariant when its destination and source are plain variables and no identifier of
// its count is the loop variable or assigned in the loop (`x =`, `x +=`, `x++`, ...). Loads
// inside member functions called from the loop (a gamma copied in every CopyIn) are not seen:
// moving those needs the queues restructured.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> invariant_reload_edits(const kernel_facts& f);
std::vector<text_edit> hoist_invariant_edits(const kernel_facts& f);

}  // namespace aopt::agent
