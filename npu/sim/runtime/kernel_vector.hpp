// The vector-unit model shared by the kernel shim's vector instructions: how an instruction
// walks its operands (count form, or repeats of 256 bytes with block/repeat strides and a lane
// mask in normal or counter mode), the bounds and alignment checks on the bytes it actually
// touches, the element-wise execution engine and the trace instruction.
//
// Lanes: a repeat has 256 / (widest operand's element size) lanes, split into 8 groups, one per
// 32-byte block of the widest operand. Lane i of repeat r of an operand with element size e and
// strides (blk, rep) in 32-byte blocks sits at byte
//   r * rep * 32 + (i / (32 / e)) * blk * 32 + (i % (32 / e)) * e
// from the operand's start. Normal mode: lane i is active when bit (i mod 128) of the 128-bit
// mask is set. Counter mode: the first N lanes overall are active. Count form: the first N
// lanes, contiguous in every operand.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aopt_sim/kernel/runtime_api.h"
#include "kernel_state.hpp"
#include "vector_loop.hpp"

// The element loops are AOPT_SIM_VECTOR_LOOPs (vector_loop.hpp), so that they run at memory
// speed; half operands of the frequent loops are converted in bulk (half_convert.hpp), since the
// one-element half conversion does not vectorise.

namespace aopt::sim::kernel {

struct lane_plan {
  bool count_form = false;
  bool counter = false;
  uint64_t total = 0;  // count form / counter mode: active lanes overall
  uint32_t lanes = 0;  // per repeat
  uint32_t group = 0;  // lanes per block group
  uint32_t repeats = 0;
  uint64_t bits_lo = 0;
  uint64_t bits_hi = 0;

  // The `group` mask bits of block group j of repeat r (bit k: lane j * group + k).
  uint64_t group_bits(uint32_t r, uint32_t j) const;
  bool lane_active(uint32_t r, uint32_t lane) const;
  uint64_t full_group() const { return group >= 64 ? ~uint64_t{0} : (uint64_t{1} << group) - 1; }
  bool empty() const { return repeats == 0 || (count_form && total == 0); }
};

struct vec_operand {
  const aopt_sim::rt::local_ref* ref = nullptr;
  uint32_t size = 0;  // element bytes
  int slot = 0;       // index into vec_shape.blk/rep
  bool read = false;
  bool write = false;
  bool aligned = true;  // must start on a 32-byte block
  const char* name = "";
};

// Resolves the walk of an instruction whose widest element has `lane_bytes` bytes, applying
// isSetMask (a mask given to the call is written to the mask register, as on hardware).
lane_plan resolve_plan(state& s, const aopt_sim::rt::vec_shape& shape, uint32_t lane_bytes,
                       const char* api, aopt_sim::rt::call_site site);

// Byte offset of lane `lane` of repeat `r` from the operand's start.
inline uint64_t lane_offset(const vec_operand& op, const aopt_sim::rt::vec_shape& shape,
                            const lane_plan& p, uint32_t r, uint32_t lane) {
  if (p.count_form) return (uint64_t{r} * p.lanes + lane) * op.size;
  const uint32_t per_block = 32 / op.size;
  return uint64_t{r} * shape.rep[op.slot] * 32 +
         uint64_t{lane / per_block} * shape.blk[op.slot] * 32 +
         uint64_t{lane % per_block} * op.size;
}

struct byte_hull {
  uint64_t begin = 0;
  uint64_t end = 0;  // begin == end: nothing touched
};

// The bytes the active lanes of `op` touch, absolute in UB.
byte_hull operand_hull(const vec_operand& op, const aopt_sim::rt::vec_shape& shape,
                       const lane_plan& p);

// Bounds and alignment of every operand; fills `hulls` (one per operand).
void check_operands(const vec_operand* ops, size_t n, const aopt_sim::rt::vec_shape& shape,
                    const lane_plan& p, byte_hull* hulls, const char* api,
                    aopt_sim::rt::call_site site);

// Appends the V instruction: bytes and repeats from the plan, reads/writes from the hulls of the
// operands that read/write, plus `extra_writes` (a reduction's scratch buffer).
void record_vector(state& s, op_class cls, const char* api, aopt_sim::rt::call_site site,
                   const lane_plan& p, uint32_t lane_bytes, const vec_operand* ops,
                   const byte_hull* hulls, size_t n, const byte_hull* extra_writes = nullptr);

// An element-wise kernel over n contiguous elements of each operand (b may be null).
struct chunk_args {
  double scalar = 0;
  AscendC::RoundMode mode = AscendC::RoundMode::CAST_NONE;
};
using chunk_fn = void (*)(uint8_t* d, const uint8_t* a, const uint8_t* b, size_t n,
                          const chunk_args& args);

// Runs `fn` over the active lanes of ops[0] (dst) and ops[1..n) (sources); lanes the mask turns
// off keep their old value.
void run_elementwise(state& s, const aopt_sim::rt::vec_shape& shape, const lane_plan& p,
                     const vec_operand* ops, size_t n, chunk_fn fn, const chunk_args& args);

// Plan, checks, execution and trace of an element-wise instruction.
void elementwise_call(op_class cls, const char* api, aopt_sim::rt::call_site site,
                      const aopt_sim::rt::vec_shape& shape, vec_operand* ops, size_t n, chunk_fn fn,
                      const chunk_args& args);

template <typename F>
void for_each_active_lane(const lane_plan& p, F&& f) {
  if (p.count_form) {
    for (uint64_t i = 0; i < p.total; ++i)
      f(static_cast<uint32_t>(i / p.lanes), static_cast<uint32_t>(i % p.lanes));
    return;
  }
  for (uint32_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < 8; ++j) {
      const uint64_t bits = p.group_bits(r, j);
      for (uint32_t k = 0; k < p.group; ++k)
        if ((bits >> k) & 1u) f(r, j * p.group + k);
    }
  }
}

op_class class_of(aopt_sim::rt::vop op);

// GM atomic accumulation of a UB -> GM copy: gm[i] = gm[i] op ub[i].
void accumulate(aopt_sim::rt::atomic_op op, aopt_sim::rt::dtype t, uint8_t* gm, const uint8_t* ub,
                size_t n);

}  // namespace aopt::sim::kernel
