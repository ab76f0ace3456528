// CANN's compiler synchronises the scalar unit with the other pipes by itself: with
// --cce-auto-sync (on by default in kernel-launch and custom-operator projects, BiSheng Compiler
// documentation "Automatic Synchronization") it inserts the waits between MTE2 and S, MTE3 and
// S, and V and S (both directions), so a kernel may read a vector result with GetValue or feed
// a scalar it wrote to a vector op without flags. The MTE2 -> V, V -> MTE3, V -> MTE2 and
// MTE3 -> V ordering stays the kernel's job (queues, flags, barriers).
//
// insert_auto_sync adds those edges to a recorded trace as instruction::auto_deps: a scalar
// access that touches UB data an instruction of another pipe touched in a conflicting way
// (write/read, read/write, write/write) depends on that pipe's latest instruction so far, and an
// instruction of another pipe in conflict with a scalar access depends on the latest scalar
// instruction: the inserted SetFlag sits right before the consumer's WaitFlag and waits for
// everything its pipe issued before it. Like the compiler, which reasons about
// tensors rather than bytes, it works on 32-byte UB blocks, so it may order a little more than
// strictly needed, never less. Deterministic from the trace alone, so a checker can recompute
// it; it replaces any auto_deps already present.
#pragma once

#include "trace.hpp"

namespace aopt::sim {

void insert_auto_sync(core_trace& trace);

// Removes every compiler-inserted edge: the trace as a kernel compiled without auto-sync runs.
void clear_auto_sync(core_trace& trace);

}  // namespace aopt::sim
