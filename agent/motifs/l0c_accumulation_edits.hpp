// Both directions of the cube's L0C accumulation motif (motif_library.hpp): a tile of c takes
// its K steps in one L0C (CO1) tensor, each Mmad after the first accumulating, and leaves L0C
// once, through one Fixpipe.
//
//   per_step_fixpipe_edits  (rewind) `LocalTensor<T> c = q.AllocTensor<T>();` (q a CO1 queue)
//                           right before a counted K loop `for (... s = 0; ...)` whose body
//                           hands the first-step flag `s == 0` to the multiplication into c
//                           (in a call that passes c, or as the params' cmatrixInitVal), with
//                           `q.EnQue(c);` and a one-call copy-out (a Fixpipe, or a member
//                           function whose body has one) right after the loop -> the
//                           allocation at the top of the loop body, the flag `true` (every step
//                           starts its own L0C sum), and at the bottom the EnQue, then the
//                           copy-out under SetAtomicAdd<T>() for every step but the first, then
//                           SetAtomicNone(): the partial sums meet in GM. Only where every
//                           Fixpipe of the kernel writes a 32-bit result (float, int32_t)
//                           without ReLU or quantization: a partial sum through either would
//                           not add up to the product.
//   l0c_accumulation_edits  (optimization) that per-step form, however its names are spelled,
//                           when its copy-out does not name the K step -> the accumulation in
//                           L0C again, the flag `s == 0`.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> per_step_fixpipe_edits(const kernel_facts& f);
std::vector<text_edit> l0c_accumulation_edits(const kernel_facts& f);

}  // namespace aopt::agent
