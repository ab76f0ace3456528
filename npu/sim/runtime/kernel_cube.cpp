// The cube instructions of the kernel API shim (aopt_sim/kernel/cube.h): GM -> L1 with the ND -> NZ
// conversion on MTE2, LoadData 2D L1 -> L0A/L0B on MTE1, Mmad on M and Fixpipe L0C -> GM/L1 on FIX
// (the 3D LoadData, img2col, is kernel_cube_img2col.cpp).
// Each checks that its operands are in the memories the documentation allows and inside their
// buffers, computes, and records one instruction with its footprint (bounding ranges per operand)
// for the timing model and the hazard detector.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "aopt_sim/kernel/cube.h"
#include "kernel_cube.hpp"
#include "kernel_cube_operands.hpp"
#include "kernel_numeric.hpp"
#include "kernel_state.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {

using aopt_sim::rt::atomic_op;
using aopt_sim::rt::call_site;
using aopt_sim::rt::dtype;
using aopt_sim::rt::local_ref;

mem_space space_of_ref(const state& s, const local_ref& t) {
  return s.mem.space_at(t.buf_begin);
}

void require_space(const state& s, const local_ref& t, std::initializer_list<mem_space> allowed,
                   const char* api, call_site site, const char* operand, const char* positions) {
  if (t.buf_end == 0)
    fail("ub_out_of_bounds", cat(where(api, site), ": ", operand,
                                 " is a LocalTensor without a buffer (default-constructed, or not "
                                 "obtained from AllocTensor/DeQue/TBuf::Get)"));
  const mem_space got = space_of_ref(s, t);
  for (mem_space m : allowed)
    if (m == got) return;
  fail("bad_argument", cat(where(api, site), ": ", operand, " is in ", space_name(got),
                           "; the documentation allows ", positions));
}

uint32_t local_offset(const state& s, const local_ref& t) {
  return t.addr - s.mem.base[static_cast<size_t>(space_of_ref(s, t))];
}

instruction cube_instruction(pipe on, op_class cls, const char* api, call_site site) {
  instruction in;
  in.on = on;
  in.cls = cls;
  in.api = api;
  in.line = site.line;
  return in;
}

namespace {

float load_float(const uint8_t* p, dtype t) {
  switch (t) {
    case dtype::f16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return f16_to_f32(h);
    }
    case dtype::bf16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return float_of(static_cast<uint32_t>(h) << 16);
    }
    default: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
  }
}

int32_t load_int(const uint8_t* p, dtype t) {
  if (t == dtype::i8) return static_cast<int8_t>(*p);
  if (t == dtype::u8) return *p;
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

aopt::sim::cube_dtype cube_class(dtype t) {
  switch (t) {
    case dtype::f16:
      return cube_dtype::f16;
    case dtype::bf16:
      return cube_dtype::bf16;
    case dtype::i8:
    case dtype::u8:
      return cube_dtype::i8;
    default:
      return cube_dtype::f32;
  }
}

// Rounds `v` to `t` (the fixpipe's output conversions) and stores it.
void store_converted(uint8_t* p, dtype t, double v) {
  switch (t) {
    case dtype::f16: {
      const uint16_t h = f32_to_f16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case dtype::bf16: {
      const uint16_t h = aopt_sim::bf16_bits_from_float(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case dtype::f32: {
      const auto f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case dtype::i8: {
      const double r = std::nearbyint(std::clamp(v, -128.0, 127.0));
      *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(r);
      return;
    }
    case dtype::u8: {
      const double r = std::nearbyint(std::clamp(v, 0.0, 255.0));
      *p = static_cast<uint8_t>(r);
      return;
    }
    default: {
      const double c = std::clamp(v, static_cast<double>(std::numeric_limits<int32_t>::min()),
                                  static_cast<double>(std::numeric_limits<int32_t>::max()));
      const auto i = static_cast<int32_t>(c);
      std::memcpy(p, &i, 4);
      return;
    }
  }
}

const char* quant_name(uint8_t q) {
  static const char* const names[] = {"NoQuant",      "F322F16", "F322BF16",
                                      "DEQF16",       "VDEQF16", "QF322B8_PRE",
                                      "VQF322B8_PRE", "REQ8",    "VREQ8"};
  return q < sizeof(names) / sizeof(names[0]) ? names[q] : "an unknown QuantMode_t";
}

// The output type a quantization mode produces from `src`, and whether it takes a scale (1: the
// scalar, 2: the per-column table).
struct quant_rule {
  bool valid = false;
  int scale = 0;
};

quant_rule rule_of(uint8_t q, dtype src, dtype dst) {
  const bool from_float = src == dtype::f32;
  const bool from_int = src == dtype::i32;
  switch (q) {
    case NoQuant:
      return {(from_float && dst == dtype::f32) || (from_int && dst == dtype::i32), 0};
    case F322F16:
      return {from_float && dst == dtype::f16, 0};
    case F322BF16:
      return {from_float && dst == dtype::bf16, 0};
    case DEQF16:
      return {from_int && dst == dtype::f16, 1};
    case VDEQF16:
      return {from_int && dst == dtype::f16, 2};
    case QF322B8_PRE:
      return {from_float && (dst == dtype::i8 || dst == dtype::u8), 1};
    case VQF322B8_PRE:
      return {from_float && (dst == dtype::i8 || dst == dtype::u8), 2};
    case REQ8:
      return {from_int && (dst == dtype::i8 || dst == dtype::u8), 1};
    case VREQ8:
      return {from_int && (dst == dtype::i8 || dst == dtype::u8), 2};
    default:
      return {};
  }
}

float scale_of(uint64_t bits) {
  return float_of(static_cast<uint32_t>(bits & 0xffffffffu));
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::instruction;
using aopt::sim::op_class;
using aopt::sim::pipe;

void cube_copy_nd2nz(const local_ref& dst, const uint8_t* src, uint32_t elem_size,
                     const nd2nz_geometry& g, call_site site) {
  const char* api = "DataCopy (Nd2NzParams)";
  state& s = current();
  const aopt::sim::gm_window open(s.launch.guard);
  require_space(s, dst, {mem_space::l1}, api, site, "the destination", "A1/B1/C1 (L1)");
  if (g.nd_num == 0 || g.n == 0 || g.d == 0) return;
  if (elem_size == 0 || c0_bytes % elem_size != 0)
    fail("bad_argument", cat(where(api, site), ": elements of ", elem_size, " bytes"));
  if (dst.addr % c0_bytes != 0)
    fail("misaligned", cat(where(api, site), ": the L1 destination at ", local_offset(s, dst),
                           " is not 32-byte aligned"));
  const uint32_t c0 = c0_bytes / elem_size;
  const uint32_t blocks = ceil_div(g.d, c0);
  const uint64_t row_bytes = uint64_t{g.d} * elem_size;
  uint64_t lo = std::numeric_limits<uint64_t>::max();
  uint64_t hi = 0;
  // Checks every write and read before copying anything.
  for (uint32_t i = 0; i < g.nd_num; ++i) {
    const uint64_t dst_nd = dst.addr + uint64_t{g.dst_nz_stride} * i * elem_size;
    const uint8_t* src_nd = src + uint64_t{g.src_nd_stride} * i * elem_size;
    const uint64_t last_row = dst_nd + uint64_t{g.n - 1} * g.dst_n_stride * c0_bytes;
    const uint64_t last_block = last_row + uint64_t{blocks - 1} * g.dst_c0_stride * c0_bytes;
    lo = std::min(lo, dst_nd);
    hi = std::max({hi, last_block + c0_bytes, last_row + c0_bytes});
    check_gm_range(s, src_nd, uint64_t{g.src_d} * (g.n - 1) * elem_size + row_bytes, api, site,
                   "the ND source reads", /*write=*/false);
  }
  check_ub_range(dst, lo, hi - lo, api, site, "the NZ destination writes");
  for (uint32_t i = 0; i < g.nd_num; ++i) {
    const uint64_t dst_nd = dst.addr + uint64_t{g.dst_nz_stride} * i * elem_size;
    const uint8_t* src_nd = src + uint64_t{g.src_nd_stride} * i * elem_size;
    record_gm_read(s, src_nd, uint64_t{g.src_d} * elem_size, static_cast<uint32_t>(row_bytes), g.n,
                   s.rec.next_index());
    for (uint32_t r = 0; r < g.n; ++r) {
      const uint8_t* src_row = src_nd + uint64_t{g.src_d} * r * elem_size;
      uint8_t* dst_row = s.ub.get() + dst_nd + uint64_t{r} * g.dst_n_stride * c0_bytes;
      for (uint32_t b = 0; b < blocks; ++b) {
        uint8_t* out = dst_row + uint64_t{b} * g.dst_c0_stride * c0_bytes;
        const uint64_t done = uint64_t{b} * c0_bytes;
        const auto take = static_cast<uint32_t>(std::min<uint64_t>(c0_bytes, row_bytes - done));
        std::memcpy(out, src_row + done, take);
        if (take < c0_bytes) std::memset(out + take, 0, c0_bytes - take);
      }
    }
  }
  const uint64_t moved = uint64_t{g.nd_num} * g.n * row_bytes;
  s.rec.count_gm(moved, 0);
  if (!s.rec.on()) return;
  instruction in = cube_instruction(pipe::mte2, op_class::dma_in, api, site);
  // One DMA descriptor per ND matrix walks its rows (the ND -> NZ engine), so the rows are not
  // separate bursts; rows shorter than 512 bytes, or starting off a 512-byte boundary, read at
  // the unaligned efficiency instead.
  in.bytes = moved;
  in.bursts = g.nd_num;
  in.min_burst_bytes = static_cast<uint32_t>(uint64_t{g.n} * row_bytes);
  in.repeats = 1;  // into L1 (timing_model.cpp: the L2 rate)
  in.gm_unaligned = reinterpret_cast<uintptr_t>(src) % 512 != 0 || row_bytes < 512 ||
                    (uint64_t{g.src_d} * elem_size) % 512 != 0;
  in.writes.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
  s.rec.add(std::move(in));
}

void cube_load_2d(const local_ref& dst, const local_ref& src, uint32_t elem_size,
                  const load2d_geometry& g, call_site site) {
  const char* api = "LoadData";
  state& s = current();
  require_space(s, src, {mem_space::l1}, api, site, "the source", "A1/B1 (L1)");
  require_space(s, dst, {mem_space::l0a, mem_space::l0b}, api, site, "the destination",
                "A2 (L0A) or B2 (L0B)");
  if (g.repeats == 0) return;
  if (g.transpose && elem_size != 2) {
    fail("unsupported", cat(where(api, site), ": ifTranspose with ", elem_size,
                            "-byte elements (the 2D transpose is documented for 16-bit types; "
                            "LoadDataWithTranspose is not simulated, docs/ascendc-api-coverage.md "
                            "row \"LoadDataWithTranspose\")"));
  }
  if (dst.addr % fractal_bytes != 0)
    fail("misaligned", cat(where(api, site), ": the L0 destination at ", local_offset(s, dst),
                           " is not 512-byte aligned"));
  if (src.addr % c0_bytes != 0)
    fail("misaligned", cat(where(api, site), ": the L1 source at ", local_offset(s, src),
                           " is not 32-byte aligned"));
  const uint64_t src_first = src.addr + uint64_t{g.start} * fractal_bytes;
  const uint64_t src_last =
      src_first + uint64_t{g.repeats - 1} * g.src_stride * fractal_bytes + fractal_bytes;
  const uint64_t dst_step = uint64_t{g.dst_gap + 1} * fractal_bytes;
  const uint64_t dst_last = dst.addr + dst_step * (g.repeats - 1) + fractal_bytes;
  const uint64_t src_lo = g.src_stride == 0 ? src_first : src_first;
  check_ub_range(src, src_lo, src_last - src_lo, api, site, "the source reads");
  check_ub_range(dst, dst.addr, dst_last - dst.addr, api, site, "the destination writes");
  uint8_t* base = s.ub.get();
  const uint32_t n16 = 16;
  for (uint32_t r = 0; r < g.repeats; ++r) {
    const uint8_t* from = base + src_first + uint64_t{r} * g.src_stride * fractal_bytes;
    uint8_t* to = base + dst.addr + dst_step * r;
    if (!g.transpose) {
      std::memmove(to, from, fractal_bytes);
      continue;
    }
    uint8_t tmp[fractal_bytes];
    for (uint32_t i = 0; i < n16; ++i)
      for (uint32_t j = 0; j < n16; ++j)
        std::memcpy(tmp + (j * n16 + i) * 2, from + (i * n16 + j) * 2, 2);
    std::memcpy(to, tmp, fractal_bytes);
  }
  if (!s.rec.on()) return;
  instruction in = cube_instruction(pipe::mte1, op_class::cube_load, api, site);
  in.bytes = uint64_t{g.repeats} * fractal_bytes;
  in.reads.push_back({static_cast<uint32_t>(src_lo), static_cast<uint32_t>(src_last)});
  in.writes.push_back({dst.addr, static_cast<uint32_t>(dst_last)});
  s.rec.add(std::move(in));
}

void cube_load_transposed_b32(const local_ref& dst, const local_ref& src,
                              const transpose_b32_geometry& g, call_site site) {
  const char* api = "Matmul (transposing load)";
  state& s = current();
  require_space(s, src, {mem_space::l1}, api, site, "the source", "A1/B1 (L1)");
  require_space(s, dst, {mem_space::l0a, mem_space::l0b}, api, site, "the destination",
                "A2 (L0A) or B2 (L0B)");
  if (g.outer == 0 || g.k == 0) return;
  constexpr uint32_t c0 = c0_bytes / 4;  // 8 floats in a 32-byte column block
  const uint32_t outer_blocks = ceil_div(g.outer, cube_rows);
  const uint32_t k_blocks = ceil_div(g.k, c0);
  if (g.src_rows < g.k)
    fail("bad_argument",
         cat(where(api, site), ": ", g.src_rows, " rows per column block for ", g.k, " rows"));
  if (dst.addr % fractal_bytes != 0)
    fail("misaligned", cat(where(api, site), ": the L0 destination at ", local_offset(s, dst),
                           " is not 512-byte aligned"));
  const uint64_t src_bytes = uint64_t{ceil_div(g.outer, c0)} * g.src_rows * c0_bytes;
  const uint64_t last_fractal =
      uint64_t{outer_blocks - 1} * g.dst_outer_stride + uint64_t{k_blocks - 1} * g.dst_k_stride;
  const uint64_t dst_bytes = (last_fractal + 1) * fractal_bytes;
  check_ub_range(src, src.addr, src_bytes, api, site, "the source reads");
  check_ub_range(dst, dst.addr, dst_bytes, api, site, "the destination writes");
  uint8_t* base = s.ub.get();
  const uint8_t* from = base + src.addr;
  for (uint32_t o = 0; o < outer_blocks; ++o)
    for (uint32_t j = 0; j < k_blocks; ++j) {
      uint8_t* fractal =
          base + dst.addr +
          (uint64_t{o} * g.dst_outer_stride + uint64_t{j} * g.dst_k_stride) * fractal_bytes;
      for (uint32_t r = 0; r < cube_rows; ++r)
        for (uint32_t q = 0; q < c0; ++q) {
          const uint32_t outer = o * cube_rows + r;
          const uint32_t kk = j * c0 + q;
          uint8_t* to = fractal + (uint64_t{r} * c0 + q) * 4;
          if (outer >= g.outer || kk >= g.k) {
            std::memset(to, 0, 4);
            continue;
          }
          std::memcpy(to, from + ((uint64_t{outer / c0} * g.src_rows + kk) * c0 + outer % c0) * 4,
                      4);
        }
    }
  if (!s.rec.on()) return;
  instruction in = cube_instruction(pipe::mte1, op_class::cube_load, api, site);
  in.bytes = uint64_t{outer_blocks} * k_blocks * fractal_bytes;
  in.reads.push_back({src.addr, static_cast<uint32_t>(src.addr + src_bytes)});
  in.writes.push_back({dst.addr, static_cast<uint32_t>(dst.addr + dst_bytes)});
  s.rec.add(std::move(in));
}

void cube_mmad(const local_ref& c, dtype c_t, const local_ref& a, dtype a_t, const local_ref& b,
               dtype b_t, const local_ref* bias, dtype bias_t, const mmad_geometry& g,
               call_site site) {
  const char* api = "Mmad";
  state& s = current();
  require_space(s, c, {mem_space::l0c}, api, site, "dst", "CO1 (L0C)");
  require_space(s, a, {mem_space::l0a}, api, site, "fm (the left matrix)", "A2 (L0A)");
  require_space(s, b, {mem_space::l0b}, api, site, "filter (the right matrix)", "B2 (L0B)");
  if (bias != nullptr)
    require_space(s, *bias, {mem_space::bt, mem_space::l0c}, api, site, "bias", "C2 or CO1");
  const bool float_in = (a_t == dtype::f16 && b_t == dtype::f16) ||
                        (a_t == dtype::bf16 && b_t == dtype::bf16) ||
                        (a_t == dtype::f32 && b_t == dtype::f32);
  const bool int_in =
      (a_t == dtype::i8 || a_t == dtype::u8) && (b_t == dtype::i8 || b_t == dtype::u8);
  if (!(float_in && c_t == dtype::f32) && !(int_in && c_t == dtype::i32)) {
    fail("bad_argument", cat(where(api, site), ": ", dtype_name(a_t), " x ", dtype_name(b_t),
                             " -> ", dtype_name(c_t),
                             " is not a documented Mmad type combination (half/bfloat16_t/float "
                             "-> float, int8_t/uint8_t -> int32_t)"));
  }
  if (bias != nullptr && bias_t != c_t)
    fail("bad_argument", cat(where(api, site), ": a ", dtype_name(bias_t), " bias for a ",
                             dtype_name(c_t), " result"));
  if (g.m > 4095 || g.n > 4095 || g.k > 4095)
    fail("bad_argument",
         cat(where(api, site), ": m, n, k = ", g.m, ", ", g.n, ", ", g.k, " (each at most 4095)"));
  if (g.m == 0 || g.n == 0 || g.k == 0) return;
  const uint32_t in_size = dtype_size(a_t);
  const uint32_t c0 = c0_bytes / in_size;
  const uint32_t mb = ceil_div(g.m, cube_rows);
  const uint32_t nb = ceil_div(g.n, cube_rows);
  const uint32_t kb = ceil_div(g.k, c0);
  for (const local_ref* t : {&a, &b, &c})
    if (t->addr % fractal_bytes != 0)
      fail("misaligned", cat(where(api, site), ": an operand at ", local_offset(s, *t), " in ",
                             space_name(space_of_ref(s, *t)), " is not 512-byte aligned"));
  const uint64_t a_bytes = uint64_t{mb} * kb * fractal_bytes;
  const uint64_t b_bytes = uint64_t{kb} * nb * fractal_bytes;
  const uint64_t c_bytes = uint64_t{mb} * nb * cube_rows * cube_rows * 4;
  check_ub_range(a, a.addr, a_bytes, api, site, "fm reads");
  check_ub_range(b, b.addr, b_bytes, api, site, "filter reads");
  check_ub_range(c, c.addr, c_bytes, api, site, "dst writes");
  if (bias != nullptr)
    check_ub_range(*bias, bias->addr, uint64_t{g.n} * 4, api, site, "bias reads");

  uint8_t* mem = s.ub.get();
  const uint8_t* pa = mem + a.addr;
  const uint8_t* pb = mem + b.addr;
  uint8_t* pc = mem + c.addr;
  // Element offsets in the documented layouts.
  auto a_at = [&](uint32_t i, uint32_t kk) {
    return (uint64_t{i / cube_rows} * kb + kk / c0) * cube_rows * c0 + (i % cube_rows) * c0 +
           kk % c0;
  };
  auto b_at = [&](uint32_t kk, uint32_t j) {
    return (uint64_t{kk / c0} * nb + j / cube_rows) * cube_rows * c0 + (j % cube_rows) * c0 +
           kk % c0;
  };
  auto c_at = [&](uint32_t i, uint32_t j) {
    return (uint64_t{j / cube_rows} * mb + i / cube_rows) * cube_rows * cube_rows +
           (i % cube_rows) * cube_rows + j % cube_rows;
  };
  if (float_in) {
    // Widen both operands once: the inner loop then runs on floats.
    std::vector<float> av(uint64_t{g.m} * g.k), bv(uint64_t{g.k} * g.n);
    for (uint32_t i = 0; i < g.m; ++i)
      for (uint32_t kk = 0; kk < g.k; ++kk)
        av[uint64_t{i} * g.k + kk] = load_float(pa + a_at(i, kk) * in_size, a_t);
    for (uint32_t kk = 0; kk < g.k; ++kk)
      for (uint32_t j = 0; j < g.n; ++j)
        bv[uint64_t{kk} * g.n + j] = load_float(pb + b_at(kk, j) * in_size, b_t);
    std::vector<float> acc(g.n);
    for (uint32_t i = 0; i < g.m; ++i) {
      for (uint32_t j = 0; j < g.n; ++j) {
        float init = 0;
        if (g.accumulate) std::memcpy(&init, pc + c_at(i, j) * 4, 4);
        if (bias != nullptr) std::memcpy(&init, mem + bias->addr + uint64_t{j} * 4, 4);
        acc[j] = init;
      }
      const float* arow = &av[uint64_t{i} * g.k];
      for (uint32_t kk = 0; kk < g.k; ++kk) {
        const float x = arow[kk];
        const float* brow = &bv[uint64_t{kk} * g.n];
        for (uint32_t j = 0; j < g.n; ++j) acc[j] += x * brow[j];
      }
      for (uint32_t j = 0; j < g.n; ++j) std::memcpy(pc + c_at(i, j) * 4, &acc[j], 4);
    }
  } else {
    for (uint32_t i = 0; i < g.m; ++i) {
      for (uint32_t j = 0; j < g.n; ++j) {
        int64_t acc = 0;
        if (g.accumulate) acc = load_int(pc + c_at(i, j) * 4, dtype::i32);
        if (bias != nullptr) acc = load_int(mem + bias->addr + uint64_t{j} * 4, dtype::i32);
        for (uint32_t kk = 0; kk < g.k; ++kk)
          acc += int64_t{load_int(pa + a_at(i, kk), a_t)} * load_int(pb + b_at(kk, j), b_t);
        const auto out = static_cast<int32_t>(static_cast<uint32_t>(acc));
        std::memcpy(pc + c_at(i, j) * 4, &out, 4);
      }
    }
  }
  if (!s.rec.on()) return;
  instruction in = cube_instruction(pipe::m, op_class::cube_mmad, api, site);
  in.count = uint64_t{mb} * cube_rows * nb * cube_rows * kb * c0;
  in.repeats = static_cast<uint32_t>(cube_class(a_t));
  in.bytes = a_bytes + b_bytes;
  in.reads.push_back({a.addr, static_cast<uint32_t>(a.addr + a_bytes)});
  in.reads.push_back({b.addr, static_cast<uint32_t>(b.addr + b_bytes)});
  if (g.accumulate) in.reads.push_back({c.addr, static_cast<uint32_t>(c.addr + c_bytes)});
  if (bias != nullptr) in.reads.push_back({bias->addr, bias->addr + g.n * 4});
  in.writes.push_back({c.addr, static_cast<uint32_t>(c.addr + c_bytes)});
  s.rec.add(std::move(in));
}

void cube_fixpipe(uint8_t* dst_gm, const local_ref* dst_local, dtype dst_t, const local_ref& src,
                  dtype src_t, const local_ref* quant_table, const fixpipe_geometry& g,
                  call_site site) {
  const char* api = "Fixpipe";
  state& s = current();
  const aopt::sim::gm_window open(dst_gm != nullptr ? s.launch.guard : nullptr);
  require_space(s, src, {mem_space::l0c}, api, site, "the source", "CO1 (L0C)");
  if (dst_local != nullptr)
    require_space(s, *dst_local, {mem_space::l1, mem_space::ub}, api, site, "the destination",
                  "GM, A1/B1 (L1) or CO2");
  const quant_rule rule = rule_of(g.quant, src_t, dst_t);
  if (!rule.valid) {
    fail("bad_argument",
         cat(where(api, site), ": quantPre ", quant_name(g.quant), " from ", dtype_name(src_t),
             " to ", dtype_name(dst_t), " is not a documented Fixpipe conversion"));
  }
  if (rule.scale == 2 && quant_table == nullptr)
    fail("bad_argument", cat(where(api, site), ": quantPre ", quant_name(g.quant),
                             " needs the per-column scales (the cbufWorkspace argument)"));
  if (quant_table != nullptr)
    require_space(s, *quant_table, {mem_space::l1}, api, site, "cbufWorkspace", "A1 (L1)");
  if (g.n == 0 || g.m == 0 || g.nd_num == 0) return;
  if (src.addr % 64 != 0)
    fail("misaligned", cat(where(api, site), ": the CO1 source at ", local_offset(s, src),
                           " is not 64-byte aligned"));
  if (g.src_stride < g.m || g.src_stride % cube_rows != 0) {
    fail("bad_argument", cat(where(api, site), ": srcStride ", g.src_stride,
                             " must be a multiple of 16 and at least mSize ", g.m,
                             " (the rows of each column block of the CO1 matrix)"));
  }
  const uint32_t out_size = dtype_size(dst_t);
  const uint32_t nb = ceil_div(g.n, cube_rows);
  const uint64_t src_matrix =
      uint64_t{g.src_stride} * cube_rows * 4 * (nb - 1) + uint64_t{g.m} * cube_rows * 4;
  const uint64_t src_nd_step = uint64_t{g.src_nd_stride} * cube_rows * cube_rows * 4;
  check_ub_range(src, src.addr, src_nd_step * (g.nd_num - 1) + src_matrix, api, site,
                 "the source reads");
  if (quant_table != nullptr)
    check_ub_range(*quant_table, quant_table->addr, uint64_t{g.n} * 8, api, site,
                   "the quantization scales read");
  // Destination geometry: ND rows of n elements `dst_stride` apart, or NZ column blocks of m
  // rows of 16 elements, `dst_stride` 32-byte blocks apart.
  if (g.nz2nd && g.dst_stride < g.n)
    fail("bad_argument", cat(where(api, site), ": dstStride ", g.dst_stride,
                             " (elements per destination row) is below nSize ", g.n));
  auto dst_offset = [&](uint32_t nd, uint32_t i, uint32_t j) -> uint64_t {
    const uint64_t base = uint64_t{g.dst_nd_stride} * nd * out_size;
    if (g.nz2nd) return base + (uint64_t{i} * g.dst_stride + j) * out_size;
    return base + uint64_t{j / cube_rows} * g.dst_stride * c0_bytes +
           (uint64_t{i} * cube_rows + j % cube_rows) * out_size;
  };
  const uint64_t dst_extent =
      dst_offset(g.nd_num - 1, g.m - 1, g.n - 1) + out_size;  // the last element written, + 1
  // SetAtomicAdd/Max/Min cover L0C -> GM as they cover UB -> GM (documented for the A2/A3 chips):
  // each converted element accumulates into GM, as K split over cores sums its partial products.
  const bool atomic = dst_gm != nullptr && s.atomic != atomic_op::none;
  if (dst_gm != nullptr)
    check_gm_range(s, dst_gm, dst_extent, api, site, "the destination writes", /*write=*/true);
  else
    check_ub_range(*dst_local, dst_local->addr, dst_extent, api, site, "the destination writes");
  if (atomic) check_atomic_destination(s, dst_t, out_size, out_size, api, site);

  uint8_t* mem = s.ub.get();
  uint8_t* out = dst_gm != nullptr ? dst_gm : mem + dst_local->addr;
  const float scalar = scale_of(g.deq_scalar != 0 ? g.deq_scalar : s.fixpipe_quant_scalar);
  for (uint32_t nd = 0; nd < g.nd_num; ++nd) {
    const uint8_t* from = mem + src.addr + src_nd_step * nd;
    for (uint32_t i = 0; i < g.m; ++i) {
      for (uint32_t j = 0; j < g.n; ++j) {
        const uint8_t* e = from + (uint64_t{j / cube_rows} * g.src_stride * cube_rows +
                                   uint64_t{i} * cube_rows + j % cube_rows) *
                                      4;
        double v = src_t == dtype::f32 ? static_cast<double>(load_float(e, dtype::f32))
                                       : static_cast<double>(load_int(e, dtype::i32));
        if (g.relu) v = std::max(v, 0.0);
        if (rule.scale == 1) {
          v *= scalar;
        } else if (rule.scale == 2) {
          uint64_t bits;
          std::memcpy(&bits, mem + quant_table->addr + uint64_t{j} * 8, 8);
          v *= scale_of(bits);
        }
        if (atomic) {
          uint8_t converted[4];
          store_converted(converted, dst_t, v);
          accumulate(s.atomic, dst_t, out + dst_offset(nd, i, j), converted, 1);
        } else {
          store_converted(out + dst_offset(nd, i, j), dst_t, v);
        }
      }
    }
  }
  const uint64_t written = uint64_t{g.nd_num} * g.m * g.n * out_size;
  if (dst_gm != nullptr) {
    s.rec.count_gm(atomic ? written : 0, written);
    if (g.nz2nd) {
      for (uint32_t nd = 0; nd < g.nd_num; ++nd) {
        uint8_t* first = dst_gm + dst_offset(nd, 0, 0);
        check_gm_range(s, first, dst_offset(nd, g.m - 1, g.n - 1) - dst_offset(nd, 0, 0) + out_size,
                       api, site, "the destination writes", /*write=*/true);
        record_gm_write(s, first, uint64_t{g.dst_stride} * out_size, g.n * out_size, g.m,
                        s.rec.next_index());
      }
    } else {
      for (uint32_t nd = 0; nd < g.nd_num; ++nd) {
        for (uint32_t jb = 0; jb < nb; ++jb) {
          uint8_t* first = dst_gm + dst_offset(nd, 0, jb * cube_rows);
          const uint32_t cols = std::min(cube_rows, g.n - jb * cube_rows);
          check_gm_range(s, first, uint64_t{g.m - 1} * cube_rows * out_size + cols * out_size, api,
                         site, "the destination writes", /*write=*/true);
          record_gm_write(s, first, uint64_t{cube_rows} * out_size, cols * out_size, g.m,
                          s.rec.next_index());
        }
      }
    }
  }
  if (!s.rec.on()) return;
  instruction in = cube_instruction(
      pipe::fix, dst_gm != nullptr ? op_class::cube_fixpipe : op_class::cube_fixpipe_local, api,
      site);
  in.bytes = written;
  in.bursts = g.nd_num * g.m;
  in.min_burst_bytes = g.n * out_size;
  in.gm_unaligned = dst_gm != nullptr && reinterpret_cast<uintptr_t>(dst_gm) % 512 != 0;
  in.accumulates = atomic;
  in.reads.push_back(
      {src.addr, static_cast<uint32_t>(src.addr + src_nd_step * (g.nd_num - 1) + src_matrix)});
  if (quant_table != nullptr) in.reads.push_back({quant_table->addr, quant_table->addr + g.n * 8});
  if (dst_local != nullptr)
    in.writes.push_back({dst_local->addr, static_cast<uint32_t>(dst_local->addr + dst_extent)});
  s.rec.add(std::move(in));
}

void kernel_unsupported(const char* row, const char* what) {
  fail("unsupported",
       cat(row, ": ", what, " is not simulated (docs/ascendc-api-coverage.md, row \"", row, "\")"));
}

void set_fixpipe_quant_scalar(uint64_t bits) {
  current().fixpipe_quant_scalar = bits;
}

uint64_t fixpipe_quant_scalar() {
  return current().fixpipe_quant_scalar;
}

}  // namespace aopt_sim::rt
