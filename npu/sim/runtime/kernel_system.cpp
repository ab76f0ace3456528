// The kernel shim's system APIs (runtime_api.h "system APIs"): kernel assertions, GM
// initialisation, the system workspace pointer, the instruction counter and SyncAll.
#include <algorithm>
#include <cstring>

#include "block_runner.hpp"
#include "kernel_state.hpp"
#include "trace_recorder.hpp"

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void kernel_assert_failed(const char* condition, const char* file, uint32_t line) {
  fail("assertion", cat("kernel assertion failed: ", condition, " (", file, ":", line, ")"));
}

void gm_fill(uint8_t* dst, uint64_t bytes, const void* pattern, uint32_t elem_size, const char* api,
             call_site site) {
  state& s = current();
  const aopt::sim::gm_window open(s.launch.guard);
  check_gm_range(s, dst, bytes, api, site, "writes", true);
  for (uint64_t at = 0; at + elem_size <= bytes; at += elem_size)
    std::memcpy(dst + at, pattern, elem_size);
  s.rec.count_gm(0, bytes);
  for (uint64_t at = 0; at < bytes; at += uint64_t{1} << 30) {
    record_gm_write(s, dst + at, 0, static_cast<uint32_t>(std::min<uint64_t>(bytes - at, 1u << 30)),
                    1, s.rec.next_index());
  }
  if (!s.rec.on() || bytes == 0) return;
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::mte3;
  in.cls = aopt::sim::op_class::dma_out;
  in.api = api;
  in.line = site.line;
  in.bytes = bytes;
  in.bursts = 1;
  in.min_burst_bytes = static_cast<uint32_t>(bytes > 0xffffffffu ? 0xffffffffu : bytes);
  s.rec.add(std::move(in));
}

void set_sys_workspace(uint8_t* workspace) {
  current().sys_workspace = workspace;
}

uint8_t* sys_workspace() {
  return current().sys_workspace;
}

int64_t system_cycle() {
  return static_cast<int64_t>(current().rec.instruction_count());
}

void sync_all(uint32_t gm_accesses, call_site site) {
  state& s = current();
  const uint32_t blocks = s.launch.block_num;
  if (blocks > 1 && s.launch.runner == nullptr) {
    fail("unsupported",
         cat(where("SyncAll", site), ": blockDim ", blocks,
             ": this launch runs its blocks without a block runner, so SyncAll cannot "
             "synchronise them"));
  }
  if (blocks > s.launch.hw.vector_cores) {
    fail("deadlock",
         cat(where("SyncAll", site), ": blockDim ", blocks, " exceeds the ",
             s.launch.hw.vector_cores, " vector cores of ", s.launch.hw.name,
             ": SyncAll needs every block on a core at once, so on hardware the launch hangs "
             "(AscendC SyncAll: blockDim must not exceed the cores running the operator)"));
  }
  if (s.rec.on()) {
    aopt::sim::instruction in;
    in.on = aopt::sim::pipe::s;
    in.cls = aopt::sim::op_class::sync_all;
    in.all_pipes_barrier = true;
    in.api = "SyncAll";
    in.line = site.line;
    in.count = gm_accesses;
    for (int q = 0; q < aopt::sim::pipe_count; ++q) {
      const uint32_t last = s.rec.last_on(static_cast<aopt::sim::pipe>(q));
      if (last != aopt::sim::trace_recorder::no_index) in.deps.push_back(last);
    }
    s.rec.add(std::move(in));
  }
  if (s.launch.layout().mixed() || blocks > 1) s.launch.runner->sync_all(s.core);
}

void soft_sync_all(const local_ref& ub_workspace, uint64_t gm_workspace_elems, int32_t used_cores,
                   call_site site) {
  state& s = current();
  const uint32_t blocks = s.launch.block_num;
  if (used_cores < 0 || static_cast<uint32_t>(used_cores) > blocks) {
    fail("bad_argument", cat(where("SyncAll", site), ": usedCores ", used_cores,
                             " is outside 0..blockDim (", blocks, ")"));
  }
  if (used_cores != 0 && static_cast<uint32_t>(used_cores) != blocks) {
    fail("unsupported",
         cat(where("SyncAll", site), ": usedCores ", used_cores, " of blockDim ", blocks,
             ": which blocks take part in a partial SyncAll is not documented, so the simulator "
             "synchronises all blocks only (usedCores 0 or blockDim)"));
  }
  const uint64_t need = uint64_t{blocks} * 32;
  if (gm_workspace_elems != 0 && gm_workspace_elems * sizeof(int32_t) < need) {
    fail("bad_argument",
         cat(where("SyncAll", site), ": gmWorkspace holds ", gm_workspace_elems * sizeof(int32_t),
             " bytes; SyncAll needs ", need, " (32 per core)"));
  }
  if (uint64_t{ub_workspace.buf_end} < uint64_t{ub_workspace.addr} + need) {
    fail(
        "bad_argument",
        cat(where("SyncAll", site), ": ubWorkspace has ",
            ub_workspace.buf_end > ub_workspace.addr ? ub_workspace.buf_end - ub_workspace.addr : 0,
            " bytes; SyncAll needs ", need, " (32 per core)"));
  }
  // The software barrier writes this core's flag and polls every core's: GM accesses.
  sync_all(1 + blocks, site);
}

}  // namespace aopt_sim::rt
