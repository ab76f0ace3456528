// aopt simulator: the boundary between the kernel-facing AscendC templates (header only, compiled
// with every candidate) and the simulator runtime (aopt_simrt, compiled once with -O2).
//
// The templates reduce every API call to one of these type-erased functions on plain
// descriptors, so a candidate compiles fast and the element loops run optimised. Every function
// acts on the core that the calling thread runs (aopt::sim::core_context::current()), checks its
// arguments (throwing aopt::sim::sim_error naming the API call and the values), does the work
// and appends the call to the core's trace.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/dtypes.h"

namespace aopt_sim::rt {

enum class dtype : uint8_t { f32, f16, bf16, i8, u8, i16, u16, i32, u32, i64, u64, other };

template <typename T>
struct dtype_of {
  static constexpr dtype value = dtype::other;
};
template <>
struct dtype_of<float> {
  static constexpr dtype value = dtype::f32;
};
template <>
struct dtype_of<_Float16> {
  static constexpr dtype value = dtype::f16;
};
template <>
struct dtype_of<bfloat16_t> {
  static constexpr dtype value = dtype::bf16;
};
template <>
struct dtype_of<int8_t> {
  static constexpr dtype value = dtype::i8;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr dtype value = dtype::u8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr dtype value = dtype::i16;
};
template <>
struct dtype_of<uint16_t> {
  static constexpr dtype value = dtype::u16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr dtype value = dtype::i32;
};
template <>
struct dtype_of<uint32_t> {
  static constexpr dtype value = dtype::u32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr dtype value = dtype::i64;
};
template <>
struct dtype_of<uint64_t> {
  static constexpr dtype value = dtype::u64;
};

// The source line of an API call in the kernel, captured by a defaulted trailing argument
// (`call_site site = call_site(__builtin_LINE())`). No default constructor: a braced `{}` in a
// documented trailing parameter (DataCopy's DataCopyEnhancedParams) must never read as a site.
struct call_site {
  uint32_t line;
  explicit constexpr call_site(uint32_t l) : line(l) {}
};

// A LocalTensor as the runtime sees it: its first byte in UB and the buffer it may touch.
struct local_ref {
  uint32_t addr = 0;
  uint32_t buf_begin = 0;
  uint32_t buf_end = 0;  // an empty buffer (a default-constructed tensor) admits no access
  int32_t buffer = -1;   // index of the TPipe buffer, -1 when none
};

// ---- identity -------------------------------------------------------------------------------
uint64_t tiling_key();
int64_t block_idx();
int64_t block_num();
// The unit the calling core is (ASCEND_IS_AIV / ASCEND_IS_AIC): a core of a launch that is not
// MIX counts as an AIV, as the simulator has always run such kernels.
bool core_is_aiv();
bool core_is_aic();
int64_t sub_block_idx();
int64_t sub_block_num();
int64_t task_ration();
uint8_t* ub_base();

// ---- scalar access (S pipe) ------------------------------------------------------------------
// UB: the returned pointer is valid for `bytes` bytes.
uint8_t* ub_scalar(const local_ref& t, uint64_t offset_bytes, uint32_t bytes, bool write,
                   const char* api, call_site site);
// GM: copies `bytes` from `address` into `value`, or from `value` to `address` (write). The copy
// happens here, never through a pointer handed back: GM is out of the kernel's reach outside the
// traced API (gm_guard.hpp).
void gm_scalar(uint8_t* address, uint32_t bytes, bool write, void* value, const char* api,
               call_site site);

// ---- TPipe, queues, buffers, event ids ------------------------------------------------------
struct queue_handle {
  int32_t id = -1;
  uint32_t generation = 0;
};

void pipe_attach(void* pipe);
void pipe_detach(void* pipe) noexcept;
void* current_pipe();
void pipe_reset(call_site site);
queue_handle pipe_init_queue(AscendC::TPosition src, AscendC::TPosition dst, int32_t depth,
                             uint32_t num, uint32_t bytes, call_site site);
local_ref pipe_init_tbuf(AscendC::TPosition pos, uint32_t bytes, call_site site);
// TBufPool: a pool is named by a queue_handle into the core's pool table; id -1 is the TPipe.
queue_handle pool_init_pool(const queue_handle& parent, const queue_handle& share,
                            uint32_t max_buffers, uint32_t bytes, call_site site);
queue_handle pool_init_queue(const queue_handle& pool, AscendC::TPosition src,
                             AscendC::TPosition dst, int32_t depth, uint32_t num, uint32_t bytes,
                             call_site site);
local_ref pool_init_tbuf(const queue_handle& pool, AscendC::TPosition pos, uint32_t bytes,
                         call_site site);
void pool_reset(const queue_handle& pool, call_site site);

local_ref queue_alloc(const queue_handle& q, call_site site);
void queue_enque(const queue_handle& q, const local_ref& t, call_site site);
local_ref queue_deque(const queue_handle& q, call_site site);
void queue_free(const queue_handle& q, const local_ref& t, call_site site);
int32_t queue_count(const queue_handle& q);  // tensors waiting in the queue
int32_t queue_idle_buffers(const queue_handle& q);
int32_t queue_depth(const queue_handle& q);

AscendC::TEventID event_alloc(AscendC::HardEvent e, call_site site);
AscendC::TEventID event_fetch(AscendC::HardEvent e, call_site site);
void event_release(AscendC::HardEvent e, int32_t id, call_site site);

// ---- synchronisation ------------------------------------------------------------------------
void set_flag(AscendC::HardEvent e, int32_t id, call_site site);
void wait_flag(AscendC::HardEvent e, int32_t id, call_site site);
void set_flag_pipes(pipe_t src, pipe_t dst, int32_t id, call_site site);
void wait_flag_pipes(pipe_t src, pipe_t dst, int32_t id, call_site site);
void pipe_barrier(pipe_t p, call_site site);

// ---- data movement --------------------------------------------------------------------------
// `bursts` bursts of `burst_bytes`; a burst starts `gm_stride` GM bytes and `ub_stride` UB bytes
// after the previous one. GM -> UB with padding writes, per burst, `ub_lead` bytes of pad, the
// payload, then pad up to `ub_row` bytes (`ub_row` 0: no padding).
struct copy_geometry {
  uint32_t bursts = 1;
  uint32_t burst_bytes = 0;
  uint64_t gm_stride = 0;
  uint32_t ub_stride = 0;
  uint32_t ub_src_stride = 0;  // UB -> UB: the source's stride (ub_stride is the destination's)
  uint32_t ub_lead = 0;
  uint32_t ub_row = 0;
  bool whole_blocks = true;  // DataCopy: burst_bytes must be a multiple of 32
};

enum class pad_source : uint8_t { none, value, pad_register };

struct pad_spec {
  pad_source source = pad_source::none;
  uint32_t left_elems = 0;
  uint32_t right_elems = 0;
  uint64_t value_bits = 0;
};

void copy_gm_to_ub(const local_ref& dst, const uint8_t* src, dtype type, uint32_t elem_size,
                   const copy_geometry& g, const pad_spec& pad, const char* api, call_site site);
void copy_ub_to_gm(uint8_t* dst, const local_ref& src, dtype type, uint32_t elem_size,
                   const copy_geometry& g, const char* api, call_site site);
void copy_ub_to_ub(const local_ref& dst, const local_ref& src, uint32_t elem_size,
                   const copy_geometry& g, const char* api, call_site site);
void set_pad_value(uint64_t bits);

enum class atomic_op : uint8_t { none, add, max, min };
void set_atomic(atomic_op op, dtype type);

// ---- vector instructions ----------------------------------------------------------------------
enum class vop : uint8_t {
  add,
  sub,
  mul,
  div,
  max,
  min,
  bit_and,
  bit_or,  // binary
  adds,
  muls,
  maxs,
  mins,
  leaky_relu,
  shift_left,
  shift_right,  // tensor-scalar
  exp,
  ln,
  abs,
  sqrt,
  rsqrt,
  reciprocal,
  relu,
  bit_not,  // unary
  tanh,
  sigmoid,
  sin,
  cos,
  erf,
  silu,
  gelu,
  neg,
  floor,
  ceil,
  round,
  trunc,
  sum,  // reductions
  duplicate,
  axpy,
  add_relu,  // binary: max(a + b, 0)
};

// How a vector instruction walks its operands: `count` contiguous elements (count form), or
// `repeats` repeats of 256 bytes with block/repeat strides (in 32-byte blocks) and a lane mask,
// given as a continuous lane count, as bits, or taken from the mask register (isSetMask=false).
enum class vec_form : uint8_t { count, mask_continuous, mask_bits, mask_register };

struct vec_shape {
  vec_form form = vec_form::count;
  uint64_t count = 0;  // count form: elements; mask_continuous: the mask
  uint64_t mask_hi = 0;
  uint64_t mask_lo = 0;
  uint32_t repeats = 0;
  uint16_t blk[3] = {1, 1, 1};  // dst, src0, src1
  uint16_t rep[3] = {8, 8, 8};
};

void vec_binary(vop op, dtype t, const local_ref& dst, const local_ref& a, const local_ref& b,
                const vec_shape& s, const char* api, call_site site);
void vec_unary(vop op, dtype t, const local_ref& dst, const local_ref& src, const vec_shape& s,
               const char* api, call_site site);
void vec_scalar(vop op, dtype t, const local_ref& dst, const local_ref& src, double scalar,
                const vec_shape& s, const char* api, call_site site);
void vec_duplicate(dtype t, const local_ref& dst, double value, const vec_shape& s, const char* api,
                   call_site site);
void vec_axpy(dtype dst_t, dtype src_t, const local_ref& dst, const local_ref& src, double scalar,
              const vec_shape& s, const char* api, call_site site);
// FusedMulAdd (dst_is_factor: dst = src0 * dst + src1) or MulAddDst (dst = src0 * src1 + dst).
void vec_mul_add(bool dst_is_factor, dtype t, const local_ref& dst, const local_ref& a,
                 const local_ref& b, const vec_shape& s, const char* api, call_site site);
// int32 -> half reads the DEQSCALE register: dst = half(src * scale).
void vec_cast(dtype dst_t, dtype src_t, AscendC::RoundMode mode, const local_ref& dst,
              const local_ref& src, const vec_shape& s, const char* api, call_site site);
// SetDeqScale(half): the DEQSCALE register Cast int32 -> half and AddDeqRelu read (1 until set).
void set_deq_scale(float scale);
// AddDeqRelu: half dst = max(half((int32 a + int32 b) * DEQSCALE), 0).
void vec_add_deq_relu(const local_ref& dst, const local_ref& a, const local_ref& b,
                      const vec_shape& s, const char* api, call_site site);
// `b` is ignored when `scalar_form`.
void vec_compare(AscendC::CMPMODE mode, dtype t, const local_ref& dst, const local_ref& a,
                 const local_ref& b, bool scalar_form, double scalar, const vec_shape& s,
                 const char* api, call_site site);
// Compare into the CMPMASK register (one repeat).
void vec_compare_to_register(AscendC::CMPMODE mode, dtype t, const local_ref& a, const local_ref& b,
                             const vec_shape& s, const char* api, call_site site);
// `mask` null: the CMPMASK register (SetCmpMask / register Compare).
void vec_select(AscendC::SELMODE mode, dtype t, const local_ref& dst, const local_ref* mask,
                const local_ref& a, const local_ref& b, bool scalar_form, double scalar,
                const vec_shape& s, const char* api, call_site site);
void set_cmp_mask(const local_ref& src, call_site site);
void get_cmp_mask(const local_ref& dst, call_site site);

// ReduceSum/Max/Min over all lanes into dst[0] (and the index into dst[1] when `cal_index`).
// vec_shape.rep[1] is srcRepStride in the mask form.
void vec_reduce(vop op, dtype t, const local_ref& dst, const local_ref& src, const local_ref& tmp,
                bool cal_index, const vec_shape& s, const char* api, call_site site);
// One result per repeat, `dst_rep_stride` results apart (units per ReduceOrder).
void vec_whole_reduce(vop op, dtype t, const local_ref& dst, const local_ref& src,
                      AscendC::ReduceOrder order, uint32_t dst_rep_stride, const vec_shape& s,
                      const char* api, call_site site);
// One result per 32-byte block, 8 per repeat, repeats `dst_rep_stride` * 8 elements apart.
void vec_block_reduce(vop op, dtype t, const local_ref& dst, const local_ref& src,
                      uint32_t dst_rep_stride, const vec_shape& s, const char* api, call_site site);

// ---- composite vector instructions (kernel_vector_composite.cpp) ---------------------------
// An instruction whose element loop the shim header computes itself (Gather, Sort32, Transpose,
// CumSum, ...), over contiguous spans: the runtime checks every span against its tensor's
// buffer (and the 32-byte start of each operand), records one V instruction of class `cls`
// with the spans as its footprint and `work_bytes` of vector work (one repeat per 256 bytes),
// and returns each span's first byte in `out`.
enum class vec_class : uint8_t { simple, mul, div_transcendental, reduce, cast, compare_select };

struct vec_span {
  const local_ref* ref = nullptr;
  uint64_t offset = 0;  // bytes from the tensor's start
  uint64_t bytes = 0;
  bool read = false;
  bool write = false;
  const char* name = "";
};

void vec_composite(vec_class cls, const vec_span* spans, size_t n, uint8_t** out,
                   uint64_t work_bytes, const char* api, call_site site);
// MrgSort's per-list counts of merged pairs, kept for GetMrgSortResult.
void set_mrg_sort_result(const uint16_t* counts);
void mrg_sort_result(uint16_t* counts);

// ---- TransDataTo5HD (kernel_vector_trans_5hd.cpp) ---------------------------------------------
// `repeats` repeats over 16 source and 16 destination 32-byte blocks (dst[i] / src[i] plus
// repeat * rep_stride blocks); per repeat element j of every source block goes to destination
// block j (16-bit), to blocks 2j and 2j + 1 (32-bit), or to the chosen 16-byte half of block j
// from each source block's chosen half (8-bit: the high or low half, as the flags say).
void vec_trans_data_5hd(uint32_t elem_size, const local_ref* dst, const local_ref* src,
                        bool dst_high_half, bool src_high_half, uint32_t repeats,
                        uint16_t dst_rep_stride, uint16_t src_rep_stride, call_site site);

// ---- GatherMask and Gatherb (kernel_vector_gather_mask.cpp) -------------------------------
// GatherMaskParams as the runtime sees it (strides in 32-byte blocks).
struct gather_mask_params {
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 0;
  uint8_t src1RepeatStride = 0;
};
// Copies the elements of src0 that the pattern selects, in order, to dst; returns how many
// (rsvdCnt). `pattern` is the user pattern tensor (one bit per element, `elem_size`-byte words)
// or null for the built-in pattern `fixed_pattern` (1..7).
uint64_t vec_gather_mask(uint32_t elem_size, const local_ref& dst, const local_ref& src0,
                         const local_ref* pattern, uint8_t fixed_pattern, bool reduce_mode,
                         uint32_t mask, const gather_mask_params& p, call_site site);
// Gatherb: repeat_time repeats of 8 32-byte blocks; block i comes from src0 + offset[i] bytes
// and goes to dst + (repeat * dst_rep_stride + block * dst_blk_stride) blocks.
void vec_gatherb(const local_ref& dst, const local_ref& src0, const local_ref& offset,
                 uint8_t repeat_time, uint16_t dst_blk_stride, uint16_t dst_rep_stride,
                 call_site site);

// ---- system APIs (kernel_system.cpp) ----------------------------------------------------------
// A kernel-side check (ASSERT, assert, a documented precondition) failed: ends the block as a
// runtime error naming the condition and its line.
[[noreturn]] void kernel_assert_failed(const char* condition, const char* file, uint32_t line);
// InitGlobalMemory: `bytes` bytes at `dst` filled with the `elem_size`-byte pattern, on MTE3.
void gm_fill(uint8_t* dst, uint64_t bytes, const void* pattern, uint32_t elem_size, const char* api,
             call_site site);
void set_sys_workspace(uint8_t* workspace);
uint8_t* sys_workspace();
// Instructions this core has recorded so far: monotonic, not a cycle count.
int64_t system_cycle();
// SyncAll: every block reaches it before any goes on (the launch's block_runner parks the block
// until then). Costs `gm_accesses` scalar GM accesses (the hardware barrier: 2).
void sync_all(uint32_t gm_accesses, call_site site);
// The software SyncAll: checks its workspaces (32 bytes per core each; `gm_workspace_elems` 0
// when the GlobalTensor's size is unknown) and usedCores, then synchronises like sync_all.
void soft_sync_all(const local_ref& ub_workspace, uint64_t gm_workspace_elems, int32_t used_cores,
                   call_site site);

// ---- MIX kernels (kernel_cross_core.cpp) -----------------------------------------------------
// KERNEL_TASK_TYPE_DEFAULT(type): a MIX type makes the launch one of AIC/AIV groups (the
// driver runs the set again as such when it was not); the other types change nothing.
void kernel_task_type(int type);
// CrossCoreSetFlag<mode, pipe>(flag) (`set`) or CrossCoreWaitFlag<mode, pipe>(flag), with the
// documented counter semantics (kernel_cross_core.cpp). `pipe` is a pipe_t.
void cross_core_flag(bool set, int mode, int pipe, uint32_t flag, call_site site);
// Whether the calling core is the AIC of a MIX launch: REGIST_MATMUL_OBJ then ends its kernel
// (the AIC serves the Matmul objects of its AIVs, whose cube work is timed on its pipes).
bool matmul_served_by_aic();
// Brackets the cube work of a Matmul object on an AIV of a MIX launch (trace_recorder.hpp
// serve_group_cube).
void matmul_request(bool begin);

// ---- inter-block flags (kernel_inter_block.cpp) ---------------------------------------------
// IBSet (`set`) or IBWait on the flag of (block_idx, event_id): checks the arguments and the
// workspaces (`gm_workspace_elems` int32 elements, 0 when unknown), then sets the flag or waits
// until some block has set it (the launch's block_runner). Costs scalar GM accesses.
void inter_block_flag(bool set, uint8_t* gm_workspace, uint64_t gm_workspace_elems,
                      const local_ref& ub_workspace, int32_t block_idx, int32_t event_id,
                      bool aiv_only, call_site site);

void set_mask_count();
void set_mask_norm();
void set_vector_mask(uint32_t elem_size, AscendC::MaskMode mode, uint64_t hi, uint64_t lo);
void set_vector_mask_len(uint32_t elem_size, AscendC::MaskMode mode, int32_t len);
void reset_mask();

}  // namespace aopt_sim::rt
