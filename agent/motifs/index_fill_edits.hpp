// Both directions of the vector_index_fill motif (motif_library.hpp): a local tensor filled with
// consecutive indices (first, first + 1, ...), as sorts, top-k and gathers need, by one
// CreateVecIndex on the vector unit rather than by a scalar SetValue per element. Public kernels
// write the scalar form (`for (int32_t i = 0; i < n; i++) { idx.SetValue((uint32_t)i, i); }`).
//
//   scalar_index_fill_edits  (rewind) `CreateVecIndex(d, F, N);` on a local tensor of element type
//                            T -> `for (uint32_t i = 0; i < static_cast<uint32_t>(N); i++) {
//                            d.SetValue(i, static_cast<T>(static_cast<C>(F) +
//                            static_cast<C>(i))); }` (C: the type scalar code computes T in)
//   vector_index_fill_edits  (optimization) a counted loop from 0 by 1 whose body is only
//                            `d.SetValue(i, v);`, d a local tensor of half, float, int16_t or
//                            int32_t, the index `i` and the value `i` or `i + F` / `F + i` with F
//                            loop-invariant, casts (static_cast, C-style) looked through; the loop
//                            variable and the tensor may have any name -> `CreateVecIndex(d,
//                            static_cast<T>(F), N);` (F is 0 for the value `i`)
//
// What the optimization does not see: a fill with a stride or an offset index (`d.SetValue(2 * i,
// ...)`), a loop that also does other work, a fill under a condition. A fill that feeds a copy
// to GM is left to the simulator's race check: CreateVecIndex runs on the vector pipe, which the
// copy's MTE3 does not wait for unless the kernel orders them.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> scalar_index_fill_edits(const kernel_facts& f);
std::vector<text_edit> vector_index_fill_edits(const kernel_facts& f);

}  // namespace aopt::agent
