// Both directions of the copy_in_ahead motif (motif_library.hpp). In a tile loop whose compute
// stage makes the scalar unit wait for the vector unit (a reduction read back with GetValue, a
// V_S flag), the scalar unit reaches the next tile's load only once the current tile is
// computed: however deep the queues, MTE2 and the vector unit take turns. Issuing the load of
// tile i + 1 before computing tile i lets MTE2 bring it in meanwhile.
//
//   in_order_copy_in_edits  (rewind) `if (N > 0) { ... Load(a); }` right before a counted loop
//                           over `i < N` whose body starts with `if (i + 1 < N) { ... Load(b); }`
//                           -> both removed, and `Load(a);` put back in the body after the
//                           declarations that lead it.
//   copy_in_ahead_edits     (optimization) a counted loop from 0 by 1 over `i < N` whose body is
//                           single-line declarations without side effects, then a call of a load
//                           stage, then stages in which a scalar access follows vector work ->
//                           the load issued for `i = 0` before the loop and for `i + 1` at the
//                           top of the body; the declarations its arguments need are copied
//                           there, renamed, with `i + 1` for `i`.
//
// A load stage is a member function of the kernel whose only pipe is MTE2, which enqueues what it
// loads and assigns nothing but its own locals: a load that sets a member the compute stage reads
// would hand the compute tile i + 1's state. The loop variable and the bound stay unassigned in
// the body. The queues the load allocates from need a second buffer; at depth 1 the second
// allocation has nothing to take, which the simulator reports as a deadlock.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> in_order_copy_in_edits(const kernel_facts& f);
std::vector<text_edit> copy_in_ahead_edits(const kernel_facts& f);

}  // namespace aopt::agent
