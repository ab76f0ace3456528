// The per-core instruction trace: the contract between the functional kernel API shim (which
// records one instruction per API call, in program order) and the timing model and hazard
// detector (which replay it). Synchronisation is resolved at record time into explicit
// dependency edges, so a replay needs nothing but this trace.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "byte_block.hpp"

namespace aopt::sim {

// MTE1 (L1 -> L0A/L0B), M (the cube's Mmad) and FIX (L0C -> GM/UB/L1) exist on cube cores only
// (docs/ascendc-reference.md §3); a vector-only kernel never records them.
enum class pipe : uint8_t { s = 0, v = 1, mte2 = 2, mte3 = 3, mte1 = 4, m = 5, fix = 6 };
constexpr int pipe_count = 7;
const char* to_string(pipe p);

enum class op_class : uint8_t {
  scalar_ub,               // LocalTensor GetValue/SetValue (coalesced: `count` accesses)
  scalar_gm,               // GlobalTensor GetValue/SetValue (coalesced: `count` accesses)
  dma_in,                  // DataCopy/DataCopyPad GM -> UB, on MTE2 (`repeats` 1: GM -> L1)
  dma_out,                 // DataCopy/DataCopyPad UB -> GM, on MTE3
  dma_local,               // UB -> UB copy, on V
  vec_simple,              // add, sub, max, min, abs, relu, duplicate, logic, adds, maxs, ...
  vec_mul,                 // mul, muls, axpy-like multiply-adds
  vec_div_transcendental,  // div, exp, ln, sqrt, rsqrt, reciprocal, ...
  vec_reduce,              // ReduceSum/Max/Min, WholeReduce*, BlockReduce*
  vec_cast,
  vec_compare_select,
  set_flag,   // SetFlag (explicit or hidden in EnQue/FreeTensor): fires when earlier work
              // of its pipe is done
  wait_flag,  // WaitFlag (explicit or hidden in DeQue/AllocTensor): `deps` holds the set
  barrier,    // PipeBarrier<PIPE_X> on pipe X; PIPE_ALL is on S with deps on every pipe
  sync_all,   // SyncAll: a PIPE_ALL barrier that also waits for every block to reach it;
              // `count` scalar GM accesses of cost
  // The cube (kernel_cube.cpp); appended so that the codes of the classes above stay stable.
  cube_load,           // LoadData L1 -> L0A/L0B (or L1 -> bias table), on MTE1: `bytes` moved
  cube_mmad,           // Mmad on M: `count` multiply-accumulates after padding to whole fractals,
                       // `repeats` the input type (cube_dtype)
  cube_fixpipe,        // Fixpipe/DataCopy L0C -> GM, on FIX: `bytes` written, `bursts` rows
  cube_fixpipe_local,  // Fixpipe/DataCopy L0C -> UB or L1, on FIX: `bytes` written
  // Inter-block flags (kernel_inter_block.cpp), PIPE_ALL barriers on S like SyncAll, `count`
  // scalar GM accesses of cost; `bytes` names the flag: blockIdx << 32 | eventID.
  ib_set,   // IBSet: the flag is set once this core's earlier work is done
  ib_wait,  // IBWait: passes no earlier than the IBSet of its flag on another core
  // Flags between the cores of a MIX launch (kernel_cross_core.cpp): `signals` holds the set's
  // own id, or the ids of the sets a wait consumed (one per core whose set it needed).
  cross_set,   // CrossCoreSetFlag on its pipe: fires when that pipe's earlier work is done
  cross_wait,  // CrossCoreWaitFlag on S: later instructions issue after the sets it consumed
};

// The input type of a cube_mmad instruction (its `repeats`): the MAC rate depends on it.
enum class cube_dtype : uint8_t { f16 = 0, bf16 = 1, i8 = 2, f32 = 3 };
constexpr op_class last_op_class = op_class::cross_wait;

// The unit of an AI core a trace ran on. A kernel not declared MIX runs each block on a `whole`
// core that has every unit (the simulator's model of vector-only and cube-only kernels). A MIX
// kernel (KERNEL_TYPE_MIX_AIC_1_2 or _1_1) runs each of its blockDim groups as one AIC and one or
// two AIVs, each with its own trace (driver.cpp launch_layout).
enum class core_kind : uint8_t { whole = 0, aic = 1, aiv = 2 };
const char* to_string(core_kind k);

// The work of the vector unit (V pipe) and of the cube (MTE1, M, FIX).
bool is_vector_class(op_class c);
bool is_cube_class(op_class c);

// A byte range [begin, end) of the core's Unified Buffer.
struct ub_range {
  uint32_t begin = 0;
  uint32_t end = 0;
};

struct instruction {
  pipe on = pipe::s;
  op_class cls = op_class::scalar_ub;
  bool all_pipes_barrier = false;  // PipeBarrier<PIPE_ALL>
  const char* api = "";            // static string naming the API call, e.g. "DataCopy"
  uint32_t line = 0;               // source line in the kernel when known, else 0
  // Work
  uint64_t bytes = 0;    // DMA bytes moved, or vector bytes touched
  uint32_t repeats = 0;  // vector repeats (256 bytes each)
  uint32_t bursts = 0;   // DMA bursts
  uint32_t min_burst_bytes = 0;
  bool gm_unaligned = false;  // a GM address not 512-byte aligned
  // A UB -> GM copy in atomic mode (SetAtomicAdd/Max/Min): it combines the bytes with what GM
  // holds, so what it copies is computed on, not passed through.
  bool accumulates = false;
  uint64_t count = 1;  // coalesced scalar accesses
  // Memory footprint in UB (for hazards)
  std::vector<ub_range> reads;
  std::vector<ub_range> writes;
  // Ordering edges: indices of earlier instructions of this core's trace that must finish
  // before this one starts (flag set -> wait, barrier on pipe drains).
  std::vector<uint32_t> deps;
  // Edges the compiler's automatic synchronisation adds (auto_sync.hpp), kept apart from `deps`
  // so the timing model can show what the inserted waits cost.
  std::vector<uint32_t> auto_deps;
  // Cube work a Matmul object on an AIV of a MIX launch hands to its group's AIC: it occupies the
  // AIC's pipes, which both AIVs of the group share (timing_model.cpp).
  bool on_group_cube = false;
  std::vector<uint64_t> signals;  // cross_set / cross_wait only
};

constexpr uint32_t no_gm_instruction = 0xffffffffu;

// Where a traced GM access went: `bursts` runs of `burst_bytes`, one every `stride` bytes from
// `offset`, in GM region `region` (the index of the kernel argument: inputs, outputs, workspace,
// tiling), and `seq` its place among the GM writes and reads of all blocks of the launch.
struct gm_runs {
  uint32_t region = 0;
  uint64_t offset = 0;
  uint64_t stride = 0;
  uint32_t burst_bytes = 0;
  uint32_t bursts = 1;
  uint64_t seq = 0;
  // The instruction of this core's trace that made the access (recording on), so the hazard
  // detectors order GM accesses as they order UB ones; no_gm_instruction when recording was off.
  uint32_t instruction = no_gm_instruction;

  // Whether every run lies inside a buffer of `size` bytes (overflow-safe; no runs always do).
  bool inside(uint64_t size) const;
};

// GM bytes a traced operation wrote (DataCopy UB -> GM, GlobalTensor SetValue, InitGlobalMemory).
// `data` holds the bytes the runs held right after the write (bursts concatenated; after an
// atomic accumulation, the sums). The trusted checker replays these in `seq` order and requires
// the delivered outputs to equal what they left: an output byte no traced write covers, or one
// changed after its last traced write, was written behind the simulator's back.
struct gm_write : gm_runs {
  byte_block data;
};

// GM bytes a traced operation read (DataCopy GM -> UB, the ND -> NZ copy into L1, GlobalTensor
// GetValue), `digest` the fingerprint (runs_fingerprint) of the bytes the runs held when read. A
// single burst continuing the previous one, with no GM access of any block between, extends it. The
// trusted checker rebuilds every GM buffer as the launch began and applies the traced writes in
// `seq` order; a read that saw other bytes read what the kernel wrote behind the simulator's
// back (raw pointers), so the work that made them is not in the trace.
struct gm_read : gm_runs {
  uint64_t digest = 0;
};

// One top-level carve of UB (TPipe::InitBuffer of a queue or a TBuf, TPipe::InitBufPool): the
// source line of the call, how many buffers and the bytes of each after 32-byte alignment.
struct ub_carve {
  uint32_t line = 0;
  uint32_t buffers = 0;
  uint64_t bytes_each = 0;
};

struct core_trace {
  uint32_t block_idx = 0;  // the core's place in the launch (driver.cpp launch_layout)
  core_kind kind = core_kind::whole;
  uint32_t group = 0;  // the MIX group (blockDim index) the core belongs to; whole: block_idx
  std::vector<instruction> instructions;
  uint64_t ub_high_water_bytes = 0;
  std::vector<ub_carve> ub_carves;  // in call order, recorded even when instructions are not
  uint64_t gm_read_bytes = 0;
  uint64_t gm_write_bytes = 0;
  std::vector<gm_write> gm_writes;  // recorded even when instructions are not
  std::vector<gm_read> gm_reads;    // recorded with the instructions only
};

}  // namespace aopt::sim
