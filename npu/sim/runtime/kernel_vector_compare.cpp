// Compare/CompareScalar (into bit masks or the CMPMASK register) and Select of the kernel shim.
// Bit i of a mask is bit (i % 8) of byte i / 8.
#include <cstring>

#include "kernel_numeric.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

using aopt_sim::rt::dtype;

constexpr uint32_t cmp_mask_bytes = 16;

// Reads element values as double (exact for every simulated type).
double value_at(const uint8_t* p, dtype t) {
  switch (t) {
    case dtype::f32: {
      float v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case dtype::f16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return f16_to_f32(v);
    }
    case dtype::bf16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return bf16_to_f32(v);
    }
    case dtype::i8:
      return static_cast<int8_t>(*p);
    case dtype::u8:
      return *p;
    case dtype::i16: {
      int16_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case dtype::u16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case dtype::i32: {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case dtype::u32: {
      uint32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    default:
      return 0;
  }
}

bool compare(AscendC::CMPMODE mode, double a, double b) {
  switch (mode) {
    case AscendC::CMPMODE::LT:
      return a < b;
    case AscendC::CMPMODE::GT:
      return a > b;
    case AscendC::CMPMODE::EQ:
      return a == b;
    case AscendC::CMPMODE::LE:
      return a <= b;
    case AscendC::CMPMODE::GE:
      return a >= b;
    case AscendC::CMPMODE::NE:
      return a != b;
  }
  return false;
}

void set_bit(uint8_t* bits, uint64_t i, bool v) {
  const auto m = static_cast<uint8_t>(1u << (i % 8));
  if (v)
    bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | m);
  else
    bits[i / 8] = static_cast<uint8_t>(bits[i / 8] & ~m);
}

bool get_bit(const uint8_t* bits, uint64_t i) {
  return ((bits[i / 8] >> (i % 8)) & 1u) != 0;
}

void check_type(dtype t, const char* api, aopt_sim::rt::call_site site) {
  if (dtype_size(t) == 0 || t == dtype::i64 || t == dtype::u64)
    fail("bad_argument", cat(where(api, site), ": not supported for ", dtype_name(t), " tensors"));
}

vec_operand data_operand(const aopt_sim::rt::local_ref& ref, dtype t, int slot, bool write,
                         const char* name) {
  vec_operand op;
  op.ref = &ref;
  op.size = dtype_size(t);
  op.slot = slot;
  op.read = !write;
  op.write = write;
  op.name = name;
  return op;
}

// A mask operand covering `bits` bits from its start (its checks use the byte hull directly).
byte_hull mask_hull(const aopt_sim::rt::local_ref& ref, uint64_t bits) {
  return byte_hull{ref.addr, ref.addr + (bits + 7) / 8};
}

uint64_t bit_span(const lane_plan& p) {
  return p.count_form ? p.total : uint64_t{p.repeats} * p.lanes;
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::op_class;

void vec_compare(AscendC::CMPMODE mode, dtype t, const local_ref& dst, const local_ref& a,
                 const local_ref& b, bool scalar_form, double scalar, const vec_shape& s,
                 const char* api, call_site site) {
  state& st = current();
  check_type(t, api, site);
  const uint32_t size = dtype_size(t);
  if (s.form == vec_form::count && (s.count * size) % 256 != 0) {
    fail("bad_argument", cat(where(api, site), ": count ", s.count, " x ", size,
                             " bytes = ", s.count * size, " bytes is not a multiple of 256 bytes"));
  }
  const lane_plan p = resolve_plan(st, s, size, api, site);
  if (p.empty()) return;
  vec_operand ops[3] = {data_operand(a, t, 1, false, "src0"), data_operand(b, t, 2, false, "src1")};
  const size_t n = scalar_form ? 1 : 2;
  byte_hull hulls[3];
  check_operands(ops, n, s, p, hulls, api, site);
  check_ub_aligned(dst, api, site, "dst");
  hulls[n] = mask_hull(dst, bit_span(p));
  check_ub_range(dst, hulls[n].begin, hulls[n].end - hulls[n].begin, api, site, "dst writes");
  ops[n].ref = &dst;
  ops[n].write = true;

  uint8_t* ub = st.ub.get();
  uint8_t* bits = ub + dst.addr;
  for_each_active_lane(p, [&](uint32_t r, uint32_t lane) {
    const double x = value_at(ub + a.addr + lane_offset(ops[0], s, p, r, lane), t);
    const double y =
        scalar_form ? scalar : value_at(ub + b.addr + lane_offset(ops[1], s, p, r, lane), t);
    set_bit(bits, uint64_t{r} * p.lanes + lane, compare(mode, x, y));
  });
  record_vector(st, op_class::vec_compare_select, api, site, p, size, ops, hulls, n + 1);
}

void vec_compare_to_register(AscendC::CMPMODE mode, dtype t, const local_ref& a, const local_ref& b,
                             const vec_shape& s, const char* api, call_site site) {
  state& st = current();
  check_type(t, api, site);
  const uint32_t size = dtype_size(t);
  const lane_plan p = resolve_plan(st, s, size, api, site);
  if (p.empty()) return;
  vec_operand ops[2] = {data_operand(a, t, 1, false, "src0"), data_operand(b, t, 2, false, "src1")};
  byte_hull hulls[2];
  check_operands(ops, 2, s, p, hulls, api, site);
  uint8_t* ub = st.ub.get();
  auto* reg = reinterpret_cast<uint8_t*>(st.cmp_mask.data());
  for_each_active_lane(p, [&](uint32_t r, uint32_t lane) {
    if (r != 0 || lane >= 128) return;
    const double x = value_at(ub + a.addr + lane_offset(ops[0], s, p, r, lane), t);
    const double y = value_at(ub + b.addr + lane_offset(ops[1], s, p, r, lane), t);
    set_bit(reg, lane, compare(mode, x, y));
  });
  record_vector(st, op_class::vec_compare_select, api, site, p, size, ops, hulls, 2);
}

void vec_select(AscendC::SELMODE mode, dtype t, const local_ref& dst, const local_ref* mask,
                const local_ref& a, const local_ref& b, bool scalar_form, double scalar,
                const vec_shape& s, const char* api, call_site site) {
  state& st = current();
  check_type(t, api, site);
  const uint32_t size = dtype_size(t);
  if (mask == nullptr && mode != AscendC::SELMODE::VSEL_CMPMASK_SPR) {
    fail("bad_argument",
         cat(where(api, site),
             ": the register form of Select is simulated for SELMODE::VSEL_CMPMASK_SPR only"));
  }
  const lane_plan p = resolve_plan(st, s, size, api, site);
  if (p.empty()) return;
  vec_operand ops[4] = {data_operand(dst, t, 0, true, "dst"), data_operand(a, t, 1, false, "src0"),
                        data_operand(b, t, 2, false, "src1")};
  const size_t n = scalar_form ? 2 : 3;
  byte_hull hulls[4];
  check_operands(ops, n, s, p, hulls, api, site);

  // Mode 0 reuses the first repeat's worth of bits (the CMPMASK register) every repeat; the
  // tensor modes consume the mask continuously.
  const bool per_repeat = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  uint8_t* ub = st.ub.get();
  uint8_t reg[cmp_mask_bytes];
  const uint8_t* bits = reg;
  size_t used = n;
  if (mask == nullptr) {
    std::memcpy(reg, st.cmp_mask.data(), sizeof reg);
  } else {
    const uint64_t span = per_repeat ? p.lanes : bit_span(p);
    check_ub_aligned(*mask, api, site, "selMask");
    hulls[n] = mask_hull(*mask, span);
    check_ub_range(*mask, hulls[n].begin, hulls[n].end - hulls[n].begin, api, site,
                   "selMask reads");
    ops[n].ref = mask;
    ops[n].read = true;
    used = n + 1;
    bits = ub + mask->addr;
  }
  const auto pick_scalar = scalar;
  for_each_active_lane(p, [&](uint32_t r, uint32_t lane) {
    const uint64_t bit = per_repeat ? lane : uint64_t{r} * p.lanes + lane;
    uint8_t* out = ub + dst.addr + lane_offset(ops[0], s, p, r, lane);
    if (get_bit(bits, bit)) {
      std::memmove(out, ub + a.addr + lane_offset(ops[1], s, p, r, lane), size);
    } else if (scalar_form) {
      // Scalars arrive as exact doubles of the tensors' type; write their bytes.
      switch (t) {
        case dtype::f32: {
          const auto v = static_cast<float>(pick_scalar);
          std::memcpy(out, &v, size);
          break;
        }
        case dtype::f16: {
          const uint16_t v = f32_to_f16(static_cast<float>(pick_scalar));
          std::memcpy(out, &v, size);
          break;
        }
        case dtype::bf16: {
          const uint16_t v = f32_to_bf16(static_cast<float>(pick_scalar));
          std::memcpy(out, &v, size);
          break;
        }
        default: {
          const auto v = static_cast<int64_t>(pick_scalar);
          std::memcpy(out, &v, size);  // little-endian: the low bytes
          break;
        }
      }
    } else {
      std::memmove(out, ub + b.addr + lane_offset(ops[2], s, p, r, lane), size);
    }
  });
  record_vector(st, op_class::vec_compare_select, api, site, p, size, ops, hulls, used);
}

void set_cmp_mask(const local_ref& src, call_site site) {
  state& st = current();
  check_ub_aligned(src, "SetCmpMask", site, "src");
  check_ub_range(src, src.addr, cmp_mask_bytes, "SetCmpMask", site, "src reads");
  std::memcpy(st.cmp_mask.data(), st.ub.get() + src.addr, cmp_mask_bytes);
  if (!st.rec.on()) return;
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::v;
  in.cls = op_class::vec_compare_select;
  in.api = "SetCmpMask";
  in.line = site.line;
  in.bytes = cmp_mask_bytes;
  in.repeats = 1;
  in.reads.push_back({src.addr, src.addr + cmp_mask_bytes});
  st.rec.add(std::move(in));
}

void get_cmp_mask(const local_ref& dst, call_site site) {
  state& st = current();
  check_ub_aligned(dst, "GetCmpMask", site, "dst");
  check_ub_range(dst, dst.addr, cmp_mask_bytes, "GetCmpMask", site, "dst writes");
  std::memcpy(st.ub.get() + dst.addr, st.cmp_mask.data(), cmp_mask_bytes);
  if (!st.rec.on()) return;
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::v;
  in.cls = op_class::vec_compare_select;
  in.api = "GetCmpMask";
  in.line = site.line;
  in.bytes = cmp_mask_bytes;
  in.repeats = 1;
  in.writes.push_back({dst.addr, dst.addr + cmp_mask_bytes});
  st.rec.add(std::move(in));
}

}  // namespace aopt_sim::rt
