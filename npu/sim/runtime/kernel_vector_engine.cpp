// The vector-unit model of the kernel shim (kernel_vector.hpp): lane plans, mask registers,
// operand checks, the element-wise engine and the trace instruction of a vector op.
#include <algorithm>
#include <cstring>

#include "kernel_numeric.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

constexpr uint32_t repeat_bytes = 256;
constexpr uint32_t max_repeats = 255;
constexpr uint32_t mask_lanes = 128;

// Mask register bits for the first `n` lanes (n <= 128).
void continuous_bits(uint64_t n, uint64_t& hi, uint64_t& lo) {
  lo = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  hi = n <= 64 ? 0 : n >= 128 ? ~uint64_t{0} : (uint64_t{1} << (n - 64)) - 1;
}

}  // namespace

uint64_t lane_plan::group_bits(uint32_t r, uint32_t j) const {
  if (count_form || counter) {
    const uint64_t first = uint64_t{r} * lanes + uint64_t{j} * group;
    if (first >= total) return 0;
    const uint64_t left = total - first;
    return left >= group ? full_group() : (uint64_t{1} << left) - 1;
  }
  const uint32_t start = (j * group) % mask_lanes;
  const uint64_t word = start < 64 ? bits_lo : bits_hi;
  return (word >> (start % 64)) & full_group();
}

bool lane_plan::lane_active(uint32_t r, uint32_t lane) const {
  if (count_form || counter) return uint64_t{r} * lanes + lane < total;
  const uint32_t bit = lane % mask_lanes;
  return ((bit < 64 ? bits_lo >> bit : bits_hi >> (bit - 64)) & 1u) != 0;
}

lane_plan resolve_plan(state& s, const aopt_sim::rt::vec_shape& shape, uint32_t lane_bytes,
                       const char* api, aopt_sim::rt::call_site site) {
  using aopt_sim::rt::vec_form;
  lane_plan p;
  p.lanes = repeat_bytes / lane_bytes;
  p.group = p.lanes / 8;
  if (shape.form == vec_form::count) {
    p.count_form = true;
    p.total = shape.count;
    p.repeats = static_cast<uint32_t>((p.total + p.lanes - 1) / p.lanes);
    return p;
  }
  // isSetMask = true: the call loads its mask into the mask register.
  if (shape.form == vec_form::mask_continuous) {
    if (s.counter_mode) {
      s.mask_hi = 0;
      s.mask_lo = shape.count;
    } else {
      const uint64_t limit = std::min(p.lanes, mask_lanes);
      if (shape.count > limit) {
        fail("bad_argument", cat(where(api, site), ": mask ", shape.count, " exceeds the ", limit,
                                 " lanes of a repeat of ", lane_bytes, "-byte elements"));
      }
      continuous_bits(shape.count, s.mask_hi, s.mask_lo);
    }
  } else if (shape.form == vec_form::mask_bits) {
    s.mask_hi = shape.mask_hi;
    s.mask_lo = shape.mask_lo;
  }
  if (s.counter_mode) {
    p.counter = true;
    p.total = s.mask_lo;
    p.repeats =
        static_cast<uint32_t>(std::min<uint64_t>((p.total + p.lanes - 1) / p.lanes, 0xffffffffu));
  } else {
    if (shape.repeats > max_repeats) {
      fail("bad_argument",
           cat(where(api, site), ": repeatTimes ", shape.repeats, " exceeds ", max_repeats));
    }
    p.repeats = shape.repeats;
    p.bits_lo = s.mask_lo;
    p.bits_hi = s.mask_hi;
  }
  return p;
}

byte_hull operand_hull(const vec_operand& op, const aopt_sim::rt::vec_shape& shape,
                       const lane_plan& p) {
  byte_hull h;
  if (p.empty()) return h;
  const uint64_t base = op.ref->addr;
  if (p.count_form) {
    h.begin = base;
    h.end = base + p.total * op.size;
    return h;
  }
  // Strides are non-negative, so the lowest byte is in the first repeat and the highest in the
  // last one or, in counter mode where the last repeat may be partial, the one before it. Every
  // other repeat has the same lanes as one of those.
  const uint32_t last = p.repeats - 1;
  const uint32_t candidates[3] = {0, last > 0 ? last - 1 : 0, last};
  bool any = false;
  for (uint32_t r : candidates) {
    for (uint32_t j = 0; j < 8; ++j) {
      const uint64_t bits = p.group_bits(r, j);
      if (bits == 0) continue;
      const auto first = static_cast<uint32_t>(__builtin_ctzll(bits));
      const auto top = static_cast<uint32_t>(63 - __builtin_clzll(bits));
      const uint64_t lo = base + lane_offset(op, shape, p, r, j * p.group + first);
      const uint64_t hi = base + lane_offset(op, shape, p, r, j * p.group + top) + op.size;
      if (!any) {
        h.begin = lo;
        h.end = hi;
        any = true;
      } else {
        h.begin = std::min(h.begin, lo);
        h.end = std::max(h.end, hi);
      }
    }
  }
  return h;
}

void check_operands(const vec_operand* ops, size_t n, const aopt_sim::rt::vec_shape& shape,
                    const lane_plan& p, byte_hull* hulls, const char* api,
                    aopt_sim::rt::call_site site) {
  for (size_t i = 0; i < n; ++i) {
    const vec_operand& op = ops[i];
    if (op.aligned) check_ub_aligned(*op.ref, api, site, op.name);
    hulls[i] = operand_hull(op, shape, p);
    if (hulls[i].begin == hulls[i].end) continue;
    if (op.write) {
      check_ub_range(*op.ref, hulls[i].begin, hulls[i].end - hulls[i].begin, api, site,
                     [&op] { return cat(op.name, " writes"); });
    } else {
      check_ub_read_range(current(), *op.ref, hulls[i].begin, hulls[i].end - hulls[i].begin, api,
                          site, [&op] { return cat(op.name, " reads"); });
    }
  }
}

void record_vector(state& s, op_class cls, const char* api, aopt_sim::rt::call_site site,
                   const lane_plan& p, uint32_t lane_bytes, const vec_operand* ops,
                   const byte_hull* hulls, size_t n, const byte_hull* extra_writes) {
  if (!s.rec.on()) return;
  instruction in;
  in.on = pipe::v;
  in.cls = cls;
  in.api = api;
  in.line = site.line;
  if (p.count_form || p.counter) {
    in.bytes = p.total * lane_bytes;
    in.repeats = static_cast<uint32_t>((in.bytes + repeat_bytes - 1) / repeat_bytes);
  } else {
    in.bytes = uint64_t{p.repeats} * repeat_bytes;
    in.repeats = p.repeats;
  }
  for (size_t i = 0; i < n; ++i) {
    if (hulls[i].begin == hulls[i].end) continue;
    const ub_range r{static_cast<uint32_t>(hulls[i].begin), static_cast<uint32_t>(hulls[i].end)};
    if (ops[i].read) in.reads.push_back(r);
    if (ops[i].write) in.writes.push_back(r);
  }
  if (extra_writes != nullptr && extra_writes->begin != extra_writes->end)
    in.writes.push_back(
        {static_cast<uint32_t>(extra_writes->begin), static_cast<uint32_t>(extra_writes->end)});
  s.rec.add(std::move(in));
}

void run_elementwise(state& s, const aopt_sim::rt::vec_shape& shape, const lane_plan& p,
                     const vec_operand* ops, size_t n, chunk_fn fn, const chunk_args& args) {
  uint8_t* ub = s.ub.get();
  const vec_operand& d = ops[0];
  const vec_operand* a = n > 1 ? &ops[1] : nullptr;
  const vec_operand* b = n > 2 ? &ops[2] : nullptr;
  if (p.count_form) {
    fn(ub + d.ref->addr, a ? ub + a->ref->addr : nullptr, b ? ub + b->ref->addr : nullptr, p.total,
       args);
    return;
  }
  bool contiguous = true;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t per_repeat = p.lanes * ops[i].size;
    if (shape.blk[ops[i].slot] != 1 || uint32_t{shape.rep[ops[i].slot]} * 32 != per_repeat)
      contiguous = false;
  }
  bool full = p.counter;
  if (!p.counter) {
    full = true;
    for (uint32_t j = 0; j < 8 && full; ++j) full = p.group_bits(0, j) == p.full_group();
  }
  if (contiguous && full) {
    const uint64_t count = p.counter ? p.total : uint64_t{p.repeats} * p.lanes;
    fn(ub + d.ref->addr, a ? ub + a->ref->addr : nullptr, b ? ub + b->ref->addr : nullptr, count,
       args);
    return;
  }
  uint8_t staged[256];
  for (uint32_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < 8; ++j) {
      const uint64_t bits = p.group_bits(r, j);
      if (bits == 0) continue;
      const uint32_t lane = j * p.group;
      uint8_t* dp = ub + d.ref->addr + lane_offset(d, shape, p, r, lane);
      const uint8_t* ap = a ? ub + a->ref->addr + lane_offset(*a, shape, p, r, lane) : nullptr;
      const uint8_t* bp = b ? ub + b->ref->addr + lane_offset(*b, shape, p, r, lane) : nullptr;
      if (bits == p.full_group()) {
        fn(dp, ap, bp, p.group, args);
        continue;
      }
      std::memcpy(staged, dp, size_t{p.group} * d.size);
      fn(staged, ap, bp, p.group, args);
      for (uint32_t k = 0; k < p.group; ++k)
        if ((bits >> k) & 1u)
          std::memcpy(dp + size_t{k} * d.size, staged + size_t{k} * d.size, d.size);
    }
  }
}

void elementwise_call(op_class cls, const char* api, aopt_sim::rt::call_site site,
                      const aopt_sim::rt::vec_shape& shape, vec_operand* ops, size_t n, chunk_fn fn,
                      const chunk_args& args) {
  state& s = current();
  uint32_t lane_bytes = 0;
  for (size_t i = 0; i < n; ++i) lane_bytes = std::max(lane_bytes, ops[i].size);
  const lane_plan p = resolve_plan(s, shape, lane_bytes, api, site);
  if (p.empty()) return;
  byte_hull hulls[3];
  check_operands(ops, n, shape, p, hulls, api, site);
  run_elementwise(s, shape, p, ops, n, fn, args);
  record_vector(s, cls, api, site, p, lane_bytes, ops, hulls, n);
}

op_class class_of(aopt_sim::rt::vop op) {
  using aopt_sim::rt::vop;
  switch (op) {
    case vop::mul:
    case vop::muls:
    case vop::axpy:
      return op_class::vec_mul;
    case vop::div:
    case vop::exp:
    case vop::ln:
    case vop::sqrt:
    case vop::rsqrt:
    case vop::reciprocal:
    case vop::tanh:
    case vop::sigmoid:
    case vop::sin:
    case vop::cos:
    case vop::erf:
    case vop::silu:
    case vop::gelu:
      return op_class::vec_div_transcendental;
    default:
      return op_class::vec_simple;
  }
}

}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void set_mask_count() {
  current().counter_mode = true;
}
void set_mask_norm() {
  current().counter_mode = false;
}

void set_vector_mask(uint32_t, AscendC::MaskMode, uint64_t hi, uint64_t lo) {
  state& s = current();
  s.mask_hi = hi;
  s.mask_lo = lo;
}

void set_vector_mask_len(uint32_t elem_size, AscendC::MaskMode mode, int32_t len) {
  state& s = current();
  if (mode == AscendC::MaskMode::COUNTER || s.counter_mode) {
    s.mask_hi = 0;
    s.mask_lo = len < 0 ? 0 : static_cast<uint64_t>(len);
    return;
  }
  const uint32_t lanes = std::min<uint32_t>(256 / std::max<uint32_t>(elem_size, 1), 128);
  if (len < 0 || static_cast<uint32_t>(len) > lanes)
    fail("bad_argument", cat("SetVectorMask: length ", len, " is outside 0..", lanes, " lanes"));
  continuous_bits(static_cast<uint64_t>(len), s.mask_hi, s.mask_lo);
}

void reset_mask() {
  state& s = current();
  s.mask_hi = ~uint64_t{0};
  s.mask_lo = ~uint64_t{0};
}

}  // namespace aopt_sim::rt
