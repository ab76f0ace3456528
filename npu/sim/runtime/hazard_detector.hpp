// Data-race detection over a core trace with vector clocks (docs/design.md §6.1.4): two accesses to
// the same UB bytes from different pipes, at least one a write, with no happens-before edge
// between them (same-pipe instructions are ordered; cross-pipe order comes only from flags,
// queue operations and barriers, i.e. the trace's deps edges, and from the compiler's
// automatic synchronisation, the auto_deps edges of auto_sync.hpp).
//
// The same holds for GM: a DataCopy UB -> GM on MTE3 and a DataCopy GM -> UB of the same bytes on
// MTE2 run on independent queues, so a load of what the core just stored (or a store over what it
// just loaded) needs SetFlag/WaitFlag<MTE3_MTE2> (MTE2_MTE3), a PipeBarrier<PIPE_ALL> or a chain
// of queue operations between them; the simulator's functional run executes them in program
// order, so without this check such a round trip would compute the right values where the
// hardware may not. The scalar unit's GM accesses are left out: the compiler's auto-sync orders
// S against MTE2 and MTE3 (auto_sync.hpp). Races between cores: gm_cross_core_race.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace.hpp"

namespace aopt::sim {

struct data_race {
  uint32_t first_index = 0;  // earlier instruction in trace order
  uint32_t second_index = 0;
  ub_range overlap;  // UB bytes both touch (a UB race)
  // A GM race: the kernel argument (trace.hpp gm_runs::region) whose bytes [gm_begin, gm_end)
  // both touch.
  std::optional<uint32_t> gm_region;
  uint64_t gm_begin = 0;
  uint64_t gm_end = 0;
  // "data race: DataCopy (MTE2, #12, line 40) writes UB [0, 4096) while Add (V, #13, line 41)
  //  reads it without synchronisation (missing EnQue/DeQue or SetFlag/WaitFlag MTE2_V)"
  std::string message;
};

std::optional<data_race> find_first_race(const core_trace& trace);

}  // namespace aopt::sim
