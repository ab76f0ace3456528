// Discrete-event replay of a core trace (docs/design.md §6.1.3): in-order issue from the scalar
// pipe, one in-order queue per pipe, start = max(issue, pipe free, dependencies). Multi-core
// combination: launch overhead + slowest core, never below total GM bytes / HBM bandwidth.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "hw_profile.hpp"
#include "l2_reuse.hpp"
#include "trace.hpp"

namespace aopt::sim {

struct core_timing {
  double total_cycles = 0;                       // first issue to last pipe idle
  std::array<double, pipe_count> busy_cycles{};  // indexed by pipe
  double barrier_stall_cycles = 0;               // issue stalled in PipeBarrier<PIPE_ALL>
  double flag_wait_cycles = 0;                   // pipes idle waiting on flags/queues
  // Part of flag_wait_cycles spent in waits the compiler's auto-sync inserted (auto_deps): the
  // time an instruction waited beyond what its own deps required. An edge the kernel's own
  // flags already imply costs nothing.
  double auto_sync_wait_cycles = 0;
  // Time this core waited in SyncAll for the other blocks (replay_cores).
  double sync_all_wait_cycles = 0;
  uint64_t vector_instructions = 0;
  double vector_work_cycles = 0;  // repeat cycles without start-up (roofline)
  double cube_work_cycles = 0;    // Mmad cycles without start-up (roofline's compute bound)
  uint64_t dma_bursts = 0;
  uint64_t dma_bytes = 0;
  // GM -> L1 bytes (cube operands) that an earlier GM access of the launch touched
  // (l2_reuse.hpp): read at the L2 rate and left out of the HBM floor, because L2 holds them; the
  // roofline's memory bound still charges each operand once.
  uint64_t l2_dma_bytes = 0;
  uint64_t scalar_accesses = 0;
};

// Whether the trace uses the cube's pipes: its blocks then run on the profile's cube_cores (AIC)
// rather than its vector_cores; cores_of_kind says which count a launch's traces get.
bool uses_cube(const core_trace& trace);

// The groups of a MIX launch's traces (launch_layout.hpp) and the cores of each; groups 0 when
// the traces are of whole cores.
struct mix_shape {
  uint32_t groups = 0;
  uint32_t cores_per_group = 1;
};
mix_shape mix_shape_of(const std::vector<core_trace>& traces);
uint32_t cores_of_kind(const std::vector<core_trace>& traces, const hw_profile& hw);
// The physical cores a launch's blocks are placed on, in waves: the AI cores (an AIC with its
// AIVs each) for a MIX launch's groups (`mix`, of the same traces), otherwise the cores of the
// kind its work needs (cores_of_kind).
uint32_t cores_running(const mix_shape& mix, const std::vector<core_trace>& traces,
                       const hw_profile& hw);
// The cores a launch starts at once, each paying its share of the launch overhead
// (hw_profile::launch_overhead_us): its blocks up to the cores of their kind or, for a MIX
// launch, its groups up to the physical AI cores, each group's AIC and AIVs alike. Charged per
// group, a kernel declared MIX started two AIVs per AIC for free (red team 6).
uint32_t launch_cores(const std::vector<core_trace>& traces, const hw_profile& hw);

// `active_cores` is the launch's blockDim, capped at the profile's cores (the rest run in later
// waves): DMA bandwidth per core is min(per-core rate, HBM bandwidth / active_cores).
// `l2_hits`: the bytes of the core's GM -> L1 loads that L2 serves (find_l2_hits over the
// launch's traces); none: every byte comes from GM.
core_timing replay_core(const core_trace& trace, const hw_profile& hw, uint32_t active_cores,
                        const l2_hit_bytes* l2_hits = nullptr);

// Every block's timing, with SyncAll and IBSet/IBWait synchronising them: a block passes its
// k-th SyncAll when the last block reaches its k-th, and an IBWait no earlier than the first
// IBSet of its flag ends (blocks using either all run at once: blockDim <= cores; the wait
// counts as flag_wait_cycles). Without them, the same as replay_core on each trace.
std::vector<core_timing> replay_cores(const std::vector<core_trace>& traces, const hw_profile& hw,
                                      uint32_t block_dim);

struct kernel_timing {
  double latency_us = 0;  // launch overhead + max(busiest physical core, GM bytes / HBM)
  double launch_overhead_us = 0;
  double core_time_max_us = 0;   // the busiest physical core: the blocks it ran, back to back
  double core_time_mean_us = 0;  // per logical block
  uint32_t critical_core = 0;    // index into the cores vector of the slowest block
  double hbm_floor_us = 0;       // total GM bytes / HBM bandwidth
  uint32_t waves = 0;            // ceil(blockDim / physical cores)
};

// `cores` holds one timing per logical block (blockDim of them, up to 65535). Blocks beyond the
// profile's vector_cores run in waves: each block starts, in block order, on the physical core
// that becomes free first (CANN schedules logical blocks onto free cores).
kernel_timing combine_cores(const std::vector<core_timing>& cores,
                            const std::vector<core_trace>& traces, const hw_profile& hw);

}  // namespace aopt::sim
