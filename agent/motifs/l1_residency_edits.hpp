// Both directions of the cube's L1 residency motif (motif_library.hpp): an operand block that
// every iteration of a loop reads unchanged (a row panel of a, converted to NZ on its way into
// L1) is loaded and converted once, before the loop, and stays in L1 until after it.
//
//   reload_operand_edits    (rewind) a one-call load, then `LocalTensor<T> x = q.DeQue<T>();`
//                           (q an A1/B1 queue), right before a loop, and `q.FreeTensor(x);`
//                           right after it -> the load and the DeQue at the top of the loop
//                           body, the FreeTensor at its bottom: every iteration brings the same
//                           block from GM and converts it again
//   resident_operand_edits  (optimization) a loop body that starts with such a load and DeQue
//                           and ends with the FreeTensor, when no argument of the load names the
//                           loop variable -> the three out of the loop again
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> reload_operand_edits(const kernel_facts& f);
std::vector<text_edit> resident_operand_edits(const kernel_facts& f);

}  // namespace aopt::agent
