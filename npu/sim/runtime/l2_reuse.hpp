// Which bytes of a GM -> L1 load (a cube operand) the L2 cache serves (issue 30, price by work).
//
// The timing model reads cube operands at the L2 rate and leaves them out of the HBM floor
// because the cores of a matmul re-read the same operand tiles: the first read of a tile brings it
// into L2, the rereads hit. Priced so whether or not anything was re-read, a load of bytes no
// access of the launch had touched before was charged as a hit: an operand read once moved its
// unique bytes at the L2 rate (110 instead of 32 bytes per cycle on the 910B4) and never reached
// the HBM floor. A load now hits only on the bytes an earlier GM access of the launch touched (a
// read or a write of any core, in the order they happened: trace.hpp gm_runs::seq); its other
// bytes come from GM. Judged from the GM accesses the runtime recorded, not from the kernel's
// word. An approximation, not a cache model: L2 is taken to keep everything a launch touched
// (96 MiB on the 910B4), and cores of one wave reading a tile at once count one after another.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace.hpp"

namespace aopt::sim {

// Of one core: the bytes L2 serves per GM -> L1 load, by instruction index (loads of no hit left
// out).
using l2_hit_bytes = std::unordered_map<uint32_t, uint64_t>;

// Whether an instruction is a GM -> L1 load (trace.hpp op_class::dma_in, `repeats` 1).
bool is_l1_load(const instruction& in);

// Per core of one launch (fully traced, so that its GM reads are recorded), in trace order.
std::vector<l2_hit_bytes> find_l2_hits(const std::vector<core_trace>& traces);

}  // namespace aopt::sim
