// GM data races between the cores of a launch: one core reads GM bytes another core writes (or
// writes bytes another reads) with no synchronisation between the cores ordering the two. The
// cores of a launch run at once on the hardware, each at its own pace, so only SyncAll, IBSet ->
// IBWait and CrossCoreSetFlag -> CrossCoreWaitFlag order one core's work before another's. The
// simulator runs its blocks one at a time, in block order (block_runner.hpp), so a block that reads
// what an earlier block stored sees it, and a block whose store lands over what an earlier block
// read was too late to spoil it: without this check both would score ok.
//
// Two cores' writes of the same bytes race only when they leave different bytes: cores that
// accumulate into one output (SetAtomicAdd) or store the same bytes of a shared tail write in any
// order by design. Unordered stores of different bytes leave whichever core the hardware ran last
// (red team 6: a core spilling stale UB over the start of the next core's slice, which the next
// block, run after it here, always overwrote).
//
// Cross-core order is per core, not per pipe: every synchronisation above waits for (SyncAll,
// IBSet, IBWait) or stands for (CrossCoreSetFlag, counted as if its pipe had drained every other)
// all of the core's earlier work, and the work after a wait starts after it. Within a core the
// order of GM accesses is hazard_detector.hpp's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trace.hpp"

namespace aopt::sim {

struct cross_core_race {
  size_t first_core = 0;  // index into the launch's traces, the access the simulator ran first
  uint32_t first_index = 0;
  size_t second_core = 0;
  uint32_t second_index = 0;
  // "data race between cores: block 0's DataCopy (MTE3, #7, line 33) writes GM bytes [0, 2048)
  //  of kernel argument 2 and block 1's DataCopy (MTE2, #3, line 40) reads them with no SyncAll,
  //  IBSet/IBWait or CrossCoreSetFlag/WaitFlag between the cores ordering the two"
  std::string message;
};

// The first race in the order the simulator ran the accesses (gm_runs::seq), or none.
std::optional<cross_core_race> find_cross_core_race(const std::vector<core_trace>& traces);

}  // namespace aopt::sim
