// The state of one simulated core behind core_context (its `impl`), shared by the kernel API
// shim's implementation files: the Unified Buffer, the TPipe allocations and queues, pending
// flags, the vector mask registers, and the trace recorder. Also the checks every API call
// makes, which throw sim_error naming the call, its source line and the values.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "aopt_sim/kernel/runtime_api.h"
#include "byte_arena.hpp"
#include "core_context.hpp"
#include "core_memory_pool.hpp"
#include "cube_memory.hpp"
#include "gm_guard.hpp"
#include "trace_recorder.hpp"

namespace aopt::sim {

namespace kernel {

constexpr uint32_t no_index = trace_recorder::no_index;
constexpr uint32_t ub_block = 32;
constexpr uint32_t max_pipe_buffers = 64;
constexpr int32_t event_ids = 8;
constexpr size_t hard_event_count = static_cast<size_t>(AscendC::HardEvent::MAX);

inline uint32_t align_up(uint32_t v, uint32_t a) {
  return (v + a - 1) / a * a;
}

// A buffer carved out of UB by TPipe::InitBuffer (a TQue's buffers, or a TBuf).
struct ub_buffer {
  enum class state : uint8_t { idle, allocated, queued, dequeued };
  uint32_t begin = 0;
  uint32_t end = 0;
  int32_t queue = -1;  // -1: a TBuf
  state st = state::idle;
  bool freed_before = false;      // the next AllocTensor reuses it and waits for the free
  uint32_t free_set = no_index;   // trace index of the FreeTensor's hidden set_flag
  uint32_t enque_set = no_index;  // trace index of the EnQue's hidden set_flag
  uint32_t alloc_line = 0;
};

struct tensor_queue {
  AscendC::TPosition src = AscendC::TPosition::VECCALC;
  AscendC::TPosition dst = AscendC::TPosition::VECCALC;
  pipe producer = pipe::v;  // writes a buffer before EnQue
  pipe consumer = pipe::v;  // reads it after DeQue
  int32_t depth = 1;
  uint32_t init_line = 0;
  std::vector<int32_t> buffers;
  std::deque<int32_t> fifo;
  size_t next = 0;  // AllocTensor hands the buffers out in ring order

  bool synchronised() const { return producer != consumer; }
};

// A TBufPool: a UB range carved out of the TPipe or of a parent pool; its queues and TBufs are
// allocated inside it. A pool created with a share pool aliases that pool's range.
struct buffer_pool {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t next = 0;         // first free byte
  uint32_t max_buffers = 0;  // bufIDSize
  uint32_t buffers = 0;
};

struct flag_slot {
  bool pending = false;
  uint32_t set_index = no_index;
  uint32_t line = 0;
};

}  // namespace kernel

struct core_context::impl {
  impl(const kernel_launch& l, uint32_t block);

  const kernel_launch& launch;
  uint32_t core;  // the core's place in the launch: its block_runner block and trace
  core_identity id;
  uint32_t block_idx;  // GetBlockIdx
  uint32_t ub_bytes;
  kernel::memory_map mem;
  std::unique_ptr<core_memory_pool> own_memory;  // when the launch has no pool
  core_memory_pool::lease ub;                    // UB, then the cube memories (mem)
  trace_recorder rec;
  byte_arena own_write_snapshots;  // when the launch keeps none

  // TPipe
  uint32_t ub_next = 0;
  // First free byte of each cube memory, from its base (kernel_cube_alloc.cpp); [ub] unused.
  std::array<uint32_t, kernel::mem_space_count> space_next{};
  uint32_t generation = 1;
  std::vector<kernel::ub_buffer> buffers;
  std::vector<kernel::tensor_queue> queues;
  std::vector<kernel::buffer_pool> pools;
  void* pipe_object = nullptr;
  std::string unfreed;  // the first tensor left allocated when a TPipe went away

  // Flags (SetFlag/WaitFlag) and event ids taken with AllocEventID
  std::array<std::array<kernel::flag_slot, kernel::event_ids>, kernel::hard_event_count> flags{};
  std::array<uint8_t, kernel::hard_event_count> allocated_ids{};

  // Vector unit: the mask register (in counter mode mask_lo is the element count) and CMPMASK.
  bool counter_mode = false;
  uint64_t mask_hi = ~uint64_t{0};
  uint64_t mask_lo = ~uint64_t{0};
  std::array<uint64_t, 2> cmp_mask{};
  std::array<uint16_t, 4> mrg_sort_counts{};  // pairs the last MrgSort took from each list
  // DEQSCALE (SetDeqScale(half)); its value before the first SetDeqScale is not documented:
  // 1 keeps Cast int32 -> half a plain conversion for kernels that never set it.
  float deq_scale = 1.0f;

  // DMA
  aopt_sim::rt::atomic_op atomic = aopt_sim::rt::atomic_op::none;
  aopt_sim::rt::dtype atomic_type = aopt_sim::rt::dtype::other;
  uint64_t pad_value = 0;
  bool pad_value_set = false;
  size_t last_region = 0;
  uint8_t* sys_workspace = nullptr;  // SetSysWorkspace / GetSysWorkSpacePtr

  // The checker's GM write record (kernel_checks.cpp record_gm_write)
  struct scalar_store {
    const uint8_t* at = nullptr;
    uint32_t bytes = 0;
    size_t region = 0;
    uint32_t by = aopt::sim::no_gm_instruction;  // the coalesced scalar_gm instruction
  };
  scalar_store pending_scalar_write;
  uint64_t own_write_seq = 0;  // when the launch has no shared counter

  std::vector<std::string> warnings;

  // Cube: the scalar of SetFixpipePreQuantFlag (the quantization a Fixpipe with a scalar mode
  // uses when its params carry none).
  uint64_t fixpipe_quant_scalar = 0;
};

namespace kernel {

using state = core_context::impl;

inline state& current() {
  return core_context::current().internals();
}

// Builds a message with operator<<.
template <typename... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// "DataCopy (line 42)" or "DataCopy".
std::string where(const char* api, aopt_sim::rt::call_site site);

[[noreturn]] void fail(const char* kind, const std::string& message);

// The simulated pipe of a pipe_t (false for PIPE_ALL and pipes the simulator has not), and the
// pipe_t's name for messages (kernel_sync.cpp).
bool simulated_pipe(pipe_t p, pipe& out);
const char* pipe_t_name(pipe_t p);

const char* dtype_name(aopt_sim::rt::dtype t);
uint32_t dtype_size(aopt_sim::rt::dtype t);
const char* event_name(AscendC::HardEvent e);

// What an access check names in its message ("src0 reads", "dst writes"): a string, or a
// callable returning one, which is called only when the check does not pass. The vector unit's
// checks pass millions of times in a run, and a message built for each (an ostringstream, its
// locale) cost more than the vector work itself.
inline const std::string& access_text(const std::string& what) {
  return what;
}
inline std::string access_text(const char* what) {
  return what;
}
template <class Describe, class = decltype(std::declval<const Describe&>()())>
std::string access_text(const Describe& describe) {
  return describe();
}

// The failures of the checks below, once the access is known to be outside.
[[noreturn]] void ub_range_failure(const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                                   const char* api, aopt_sim::rt::call_site site,
                                   const std::string& what);
void ub_read_past_buffer(state& s, const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                         const char* api, aopt_sim::rt::call_site site, const std::string& what);

// Checks that [addr, addr + bytes) lies in the buffer of `t`; `what` names the operand and the
// access for the message (access_text).
template <class What>
void check_ub_range(const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                    const char* api, aopt_sim::rt::call_site site, const What& what) {
  if (addr >= t.buf_begin && addr + bytes <= t.buf_end) return;
  ub_range_failure(t, addr, bytes, api, site, access_text(what));
}

// check_ub_range for an operand a vector instruction only reads: past its buffer but inside
// the UB, the hardware reads whatever the neighbouring bytes hold (honest kernels round a count
// up and discard the extra lanes), so that is a warning on the result, not a failure; values
// that reach an output are judged by the comparison. Past the UB, or without a buffer, it fails.
template <class What>
void check_ub_read_range(state& s, const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                         const char* api, aopt_sim::rt::call_site site, const What& what) {
  if (addr >= t.buf_begin && addr + bytes <= t.buf_end) return;
  ub_read_past_buffer(s, t, addr, bytes, api, site, access_text(what));
}

void check_ub_aligned(const aopt_sim::rt::local_ref& t, const char* api,
                      aopt_sim::rt::call_site site, const char* operand);

// Checks that [p, p + bytes) lies in one GM region of the launch. A read may reach into the
// region's allocation padding, and with a warning into its over-read zone (core_context.hpp
// gm_region); a write must stay inside the tensor.
void check_gm_range(state& s, const uint8_t* p, uint64_t bytes, const char* api,
                    aopt_sim::rt::call_site site, const char* what, bool write);

// Records a GM write at `p` by instruction `by` (trace_recorder::next_index() for the
// instruction the API adds next) for the trusted checker (trace.hpp gm_write), with the bytes the
// runs hold now. REQUIRES: check_gm_range accepted the
// access just before (it leaves the region in s.last_region) and the write has happened.
void record_gm_write(state& s, const uint8_t* p, uint64_t stride, uint32_t burst_bytes,
                     uint32_t bursts, uint32_t by);

// With an atomic mode set (SetAtomicAdd/Max/Min), a write into GM accumulates: warns when the
// region has no initial contents (op.json "init"), fails for a type or a run of `run_bytes` the
// accumulation cannot take. REQUIRES: check_gm_range accepted the write just before.
void check_atomic_destination(state& s, aopt_sim::rt::dtype type, uint32_t elem_size,
                              uint32_t run_bytes, const char* api, aopt_sim::rt::call_site site);

// Records a GM read at `p` by instruction `by` for the trusted checker (trace.hpp gm_read) when
// the trace is on: the fingerprint of the bytes the runs hold now, ordered among the launch's GM
// writes. REQUIRES: as record_gm_write, the read about to happen or just done.
void record_gm_read(state& s, const uint8_t* p, uint64_t stride, uint32_t burst_bytes,
                    uint32_t bursts, uint32_t by);

// Records the GlobalTensor store gm_scalar handed out last, if any (it happens after gm_scalar
// returns).
void flush_scalar_write(state& s);

// Adds a warning for the result, once per distinct text.
void warn(state& s, const std::string& message);

// "'x' + 4096" for an address inside or after a region, for messages that must not print raw
// (run-dependent) pointers.
std::string describe_gm(const state& s, const uint8_t* p);

}  // namespace kernel
}  // namespace aopt::sim
