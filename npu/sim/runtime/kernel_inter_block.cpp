// IBSet/IBWait (aopt_sim/kernel/inter_block_sync.h): the documented argument and workspace
// checks, the trace entry, and the flag itself, which the launch's block_runner keeps so that a
// waiting block really waits for the block that sets it.
#include <string>

#include "block_runner.hpp"
#include "kernel_state.hpp"
#include "trace_recorder.hpp"

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

namespace {

constexpr uint64_t flag_bytes = 32;  // the documented workspace granule per core and event

// The flag's name in the runner and the trace (trace.hpp op_class::ib_set).
uint64_t flag_key(int32_t block_idx, int32_t event_id) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(block_idx)) << 32) |
         static_cast<uint32_t>(event_id);
}

void record(state& s, bool set, uint64_t key, call_site site) {
  if (!s.rec.on()) return;
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::s;
  in.cls = set ? aopt::sim::op_class::ib_set : aopt::sim::op_class::ib_wait;
  // The flag must follow this core's earlier GM writes, and what comes after a wait must not
  // start before it: both wait for every pipe, as SyncAll does.
  in.all_pipes_barrier = true;
  in.api = set ? "IBSet" : "IBWait";
  in.line = site.line;
  in.bytes = key;
  in.count = 2;  // a flag write (or a poll) and the UB staging read: an estimate
  for (int q = 0; q < aopt::sim::pipe_count; ++q) {
    const uint32_t last = s.rec.last_on(static_cast<aopt::sim::pipe>(q));
    if (last != aopt::sim::trace_recorder::no_index) in.deps.push_back(last);
  }
  s.rec.add(std::move(in));
}

}  // namespace

void inter_block_flag(bool set, uint8_t* gm_workspace, uint64_t gm_workspace_elems,
                      const local_ref& ub_workspace, int32_t block_idx, int32_t event_id,
                      bool aiv_only, call_site site) {
  state& s = current();
  const char* api = set ? "IBSet" : "IBWait";
  const uint32_t blocks = s.launch.block_num;
  // In MIX mode every logical block is one AIC and two AIVs: twice the cores to name.
  const uint64_t cores = uint64_t{blocks} * (aiv_only ? 1 : 2);
  if (block_idx < 0 || static_cast<uint64_t>(block_idx) >= cores) {
    fail("bad_argument", cat(where(api, site), ": blockIdx ", block_idx, " is outside 0..",
                             cores - 1, " (the cores of this launch)"));
  }
  if (!set && static_cast<uint32_t>(block_idx) == s.block_idx) {
    fail("bad_argument", cat(where(api, site), ": block ", s.block_idx,
                             " waits for its own flag (IBWait's blockIdx names another core)"));
  }
  if (event_id < 0) {
    fail("bad_argument", cat(where(api, site), ": eventID ", event_id, " is negative"));
  }
  if (uint64_t{ub_workspace.buf_end} < uint64_t{ub_workspace.addr} + flag_bytes) {
    fail(
        "bad_argument",
        cat(where(api, site), ": ubWorkspace has ",
            ub_workspace.buf_end > ub_workspace.addr ? ub_workspace.buf_end - ub_workspace.addr : 0,
            " bytes; it needs 32"));
  }
  // The documented minimum: cores * 32 * eventID + blockIdx * 32 + 32 bytes, which is the end of
  // the flag's 32 bytes if the workspace holds one granule per (eventID, core).
  const uint64_t need = (static_cast<uint64_t>(event_id) * cores + block_idx + 1) * flag_bytes;
  if (gm_workspace_elems != 0 && gm_workspace_elems * sizeof(int32_t) < need) {
    fail("bad_argument",
         cat(where(api, site), ": gmWorkspace holds ", gm_workspace_elems * sizeof(int32_t),
             " bytes; blockIdx ", block_idx, " and eventID ", event_id, " need at least ", need,
             " (cores * 32 * eventID + blockIdx * 32 + 32, cores = ", cores, ")"));
  }
  check_gm_range(s, gm_workspace + need - flag_bytes, flag_bytes, api, site,
                 set ? "writes the flag at" : "reads the flag at", set);
  if (s.launch.runner == nullptr && (blocks > 1 || !set)) {
    fail("unsupported", cat(where(api, site), ": blockDim ", blocks,
                            ": this launch runs its blocks without a block runner, so the "
                            "blocks cannot wait for each other"));
  }
  const uint64_t key = flag_key(block_idx, event_id);
  record(s, set, key, site);
  if (set) {
    if (s.launch.runner != nullptr) s.launch.runner->set_flag(key);
    return;
  }
  if (blocks > s.launch.hw.vector_cores) {
    fail("deadlock",
         cat(where(api, site), ": blockDim ", blocks, " exceeds the ", s.launch.hw.vector_cores,
             " vector cores of ", s.launch.hw.name,
             ": a block may wait for one of a later wave, which never starts, so on hardware the "
             "launch hangs (AscendC IBWait: blockDim must not exceed the cores running the "
             "operator)"));
  }
  s.launch.runner->wait_flag(
      s.core, key,
      cat(where(api, site), ": block ", s.block_idx, " waits for the flag of block ", block_idx,
          ", eventID ", event_id));
}

}  // namespace aopt_sim::rt
