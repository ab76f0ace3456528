// Data-race detection over a core trace with vector clocks (docs/design.md §6.1.4): two accesses to
// the same UB bytes from different pipes, at least one a write, with no happens-before edge
// between them (same-pipe instructions are ordered; cross-pipe order comes only from flags,
// queue operations and barriers, i.e. the trace's deps edges, and from the compiler's
// automatic synchronisation, the auto_deps edges of auto_sync.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace.hpp"

namespace aopt::sim {

struct data_race {
  uint32_t first_index = 0;  // earlier instruction in trace order
  uint32_t second_index = 0;
  ub_range overlap;  // UB bytes both touch
  // "data race: DataCopy (MTE2, #12, line 40) writes UB [0, 4096) while Add (V, #13, line 41)
  //  reads it without synchronisation (missing EnQue/DeQue or SetFlag/WaitFlag MTE2_V)"
  std::string message;
};

std::optional<data_race> find_first_race(const core_trace& trace);

}  // namespace aopt::sim
