// The kernel shim's system APIs (runtime_api.h "system APIs"): kernel assertions, GM
// initialisation, the system workspace pointer, the instruction counter and SyncAll.
#include <algorithm>
#include <cstring>

#include "kernel_state.hpp"

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void kernel_assert_failed(const char* condition, const char* file, uint32_t line) {
  fail("assertion", cat("kernel assertion failed: ", condition, " (", file, ":", line, ")"));
}

void gm_fill(uint8_t* dst, uint64_t bytes, const void* pattern, uint32_t elem_size, const char* api,
             call_site site) {
  state& s = current();
  check_gm_range(s, dst, bytes, api, site, "writes");
  for (uint64_t at = 0; at + elem_size <= bytes; at += elem_size)
    std::memcpy(dst + at, pattern, elem_size);
  s.rec.count_gm(0, bytes);
  for (uint64_t at = 0; at < bytes; at += uint64_t{1} << 30) {
    record_gm_write(s, dst + at, 0, static_cast<uint32_t>(std::min<uint64_t>(bytes - at, 1u << 30)),
                    1);
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

void sync_all(call_site site) {
  state& s = current();
  if (s.launch.block_num > 1) {
    fail("unsupported",
         cat(where("SyncAll", site), ": blockDim ", s.launch.block_num,
             ": the simulator runs blocks one after another and cannot synchronise across cores "
             "yet (docs/ascendc-api-coverage.md, SyncAll: partial)"));
  }
  pipe_barrier(PIPE_ALL, site);
}

}  // namespace aopt_sim::rt
