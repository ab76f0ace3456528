// The cube side of a simulated core, as the TPipe allocator and the queues see it: which
// positions live in the cube's memories (cube_memory.hpp), which pipe fills and which drains a
// queue on each, and carving their buffers.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "kernel_state.hpp"

namespace aopt::sim::kernel {

// A1 B1 C1 A2 B2 C2 CO1 CO2.
bool is_cube_position(AscendC::TPosition p);
const char* cube_position_name(AscendC::TPosition p);

// The hidden flags of a cube queue (as for VECIN/VECOUT, ascendc-reference.md §3): A1/B1/C1 are
// filled by MTE2 (GM -> L1) and read by MTE1 (LoadData); A2/B2/C2 filled by MTE1 and read by M
// (Mmad); CO1 filled by M and drained by FIX (Fixpipe); CO2 (UB) filled by FIX and drained by
// MTE3.
pipe cube_producer_of(AscendC::TPosition p);
pipe cube_consumer_of(AscendC::TPosition p);

// Carves `num` buffers of `bytes` for queue `queue` (-1: a TBuf) out of the position's memory.
// L0 buffers start on 512 bytes (LoadData's documented L0A/L0B alignment), L1 buffers on 32.
// In a TBufPool (`in_pool`) cube positions are refused as unsupported.
void allocate_cube(state& s, AscendC::TPosition pos, uint32_t num, uint32_t bytes, int32_t queue,
                   bool in_pool, const char* api, aopt_sim::rt::call_site site);

// The pipe of a local -> local DataCopy: V within UB, MTE1 from L1 to the bias table (C1 -> C2).
// Other paths between the cube's memories are refused as unsupported.
pipe local_copy_pipe(const state& s, const aopt_sim::rt::local_ref& dst,
                     const aopt_sim::rt::local_ref& src, const char* api,
                     aopt_sim::rt::call_site site);

}  // namespace aopt::sim::kernel
