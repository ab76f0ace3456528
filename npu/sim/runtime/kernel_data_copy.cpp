// DataCopy/DataCopyPad of the kernel API shim: the 32-byte and bounds checks, the copy itself
// (with padding and atomic accumulation) and the trace instruction on MTE2, MTE3 or V.
#include <algorithm>
#include <cstring>

#include "kernel_cube.hpp"
#include "kernel_state.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

constexpr uint64_t gm_burst_alignment = 512;
// Bursts beyond this many are recorded as one UB range (the rows of one buffer).
constexpr uint32_t max_exact_rows = 16;

bool empty(const aopt_sim::rt::copy_geometry& g) {
  return g.bursts == 0 || g.burst_bytes == 0;
}

// Bytes of each UB row: the payload or the padded row.
uint32_t ub_row(const aopt_sim::rt::copy_geometry& g) {
  return g.ub_row != 0 ? g.ub_row : g.burst_bytes;
}

void check_whole_blocks(const aopt_sim::rt::copy_geometry& g, uint32_t elem_size, const char* api,
                        aopt_sim::rt::call_site site) {
  if (!g.whole_blocks || g.burst_bytes % ub_block == 0) return;
  const std::string size =
      elem_size != 0 && g.burst_bytes % elem_size == 0
          ? cat(g.burst_bytes / elem_size, " elements x ", elem_size, " bytes = ")
          : std::string();
  fail("misaligned",
       cat(where(api, site), ": copy length ", size, g.burst_bytes,
           " bytes is not a multiple of 32 bytes (the hardware silently rounds it down; use "
           "DataCopyPad for a tail)"));
}

void check_gm_aligned(state& s, const uint8_t* p, uint32_t elem_size, const char* api,
                      aopt_sim::rt::call_site site) {
  if (elem_size <= 1 || reinterpret_cast<uintptr_t>(p) % elem_size == 0) return;
  fail("misaligned", cat(where(api, site), ": GM address ", describe_gm(s, p),
                         " is not aligned to the element size ", elem_size));
}

uint64_t ub_extent(const aopt_sim::rt::copy_geometry& g, uint32_t stride, uint32_t row) {
  return uint64_t{stride} * (g.bursts - 1) + row;
}

uint64_t gm_extent(const aopt_sim::rt::copy_geometry& g) {
  return g.gm_stride * (g.bursts - 1) + g.burst_bytes;
}

std::vector<ub_range> rows(uint32_t base, const aopt_sim::rt::copy_geometry& g, uint32_t stride,
                           uint32_t row) {
  std::vector<ub_range> out;
  if (stride == row || g.bursts == 1 || g.bursts > max_exact_rows) {
    out.push_back({base, static_cast<uint32_t>(base + ub_extent(g, stride, row))});
    return out;
  }
  for (uint32_t k = 0; k < g.bursts; ++k)
    out.push_back({base + k * stride, base + k * stride + row});
  return out;
}

bool gm_unaligned(const uint8_t* p, const aopt_sim::rt::copy_geometry& g) {
  const auto base = reinterpret_cast<uintptr_t>(p);
  if (g.bursts > 1 && g.gm_stride % gm_burst_alignment != 0) return true;
  return base % gm_burst_alignment != 0;
}

instruction dma(pipe on, op_class cls, const char* api, aopt_sim::rt::call_site site,
                const aopt_sim::rt::copy_geometry& g) {
  instruction in;
  in.on = on;
  in.cls = cls;
  in.api = api;
  in.line = site.line;
  in.bytes = uint64_t{g.bursts} * g.burst_bytes;
  in.bursts = g.bursts;
  in.min_burst_bytes = g.burst_bytes;
  return in;
}

void fill_pad(uint8_t* dst, uint32_t elems, uint32_t elem_size, uint64_t value_bits) {
  for (uint32_t i = 0; i < elems; ++i)
    std::memcpy(dst + uint64_t{i} * elem_size, &value_bits, elem_size);
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::instruction;
using aopt::sim::op_class;
using aopt::sim::pipe;

void copy_gm_to_ub(const local_ref& dst, const uint8_t* src, dtype, uint32_t elem_size,
                   const copy_geometry& g, const pad_spec& pad, const char* api, call_site site) {
  state& s = current();
  const aopt::sim::gm_window open(s.launch.guard);
  if (empty(g)) return;
  check_ub_aligned(dst, api, site, "the UB destination");
  check_whole_blocks(g, elem_size, api, site);
  check_gm_aligned(s, src, elem_size, api, site);
  const uint32_t row = ub_row(g);
  check_ub_range(dst, dst.addr, ub_extent(g, g.ub_stride, row), api, site, "GM -> UB copy writes");
  check_gm_range(s, src, gm_extent(g), api, site, "GM -> UB copy reads", false);
  record_gm_read(s, src, g.gm_stride, g.burst_bytes, g.bursts, s.rec.next_index());

  const bool padded =
      g.ub_row != 0 && (pad.source == pad_source::value ||
                        (pad.source == pad_source::pad_register && s.pad_value_set));
  const uint64_t pad_bits = pad.source == pad_source::value ? pad.value_bits : s.pad_value;
  for (uint32_t k = 0; k < g.bursts; ++k) {
    uint8_t* row_start = s.ub.get() + dst.addr + uint64_t{k} * g.ub_stride;
    std::memcpy(row_start + g.ub_lead, src + g.gm_stride * k, g.burst_bytes);
    if (padded) {
      fill_pad(row_start, pad.left_elems, elem_size, pad_bits);
      fill_pad(row_start + g.ub_lead + g.burst_bytes, pad.right_elems, elem_size, pad_bits);
    }
  }

  const uint64_t moved = uint64_t{g.bursts} * g.burst_bytes;
  s.rec.count_gm(moved, 0);
  if (!s.rec.on()) return;
  instruction in = dma(pipe::mte2, op_class::dma_in, api, site, g);
  in.gm_unaligned = gm_unaligned(src, g);
  in.writes = rows(dst.addr, g, g.ub_stride, row);
  s.rec.add(std::move(in));
}

void copy_ub_to_gm(uint8_t* dst, const local_ref& src, dtype type, uint32_t elem_size,
                   const copy_geometry& g, const char* api, call_site site) {
  state& s = current();
  const aopt::sim::gm_window open(s.launch.guard);
  if (empty(g)) return;
  check_ub_aligned(src, api, site, "the UB source");
  check_whole_blocks(g, elem_size, api, site);
  check_gm_aligned(s, dst, elem_size, api, site);
  check_ub_range(src, src.addr, ub_extent(g, g.ub_stride, g.burst_bytes), api, site,
                 "UB -> GM copy reads");
  check_gm_range(s, dst, gm_extent(g), api, site, "UB -> GM copy writes", true);

  const bool atomic = s.atomic != atomic_op::none;
  if (atomic) check_atomic_destination(s, type, elem_size, g.burst_bytes, api, site);
  for (uint32_t k = 0; k < g.bursts; ++k) {
    const uint8_t* from = s.ub.get() + src.addr + uint64_t{k} * g.ub_stride;
    uint8_t* to = dst + g.gm_stride * k;
    if (atomic)
      accumulate(s.atomic, type, to, from, g.burst_bytes / elem_size);
    else
      std::memcpy(to, from, g.burst_bytes);
  }

  const uint64_t moved = uint64_t{g.bursts} * g.burst_bytes;
  s.rec.count_gm(atomic ? moved : 0, moved);
  record_gm_write(s, dst, g.gm_stride, g.burst_bytes, g.bursts, s.rec.next_index());
  if (!s.rec.on()) return;
  instruction in = dma(pipe::mte3, op_class::dma_out, api, site, g);
  in.gm_unaligned = gm_unaligned(dst, g);
  in.accumulates = atomic;
  in.reads = rows(src.addr, g, g.ub_stride, g.burst_bytes);
  s.rec.add(std::move(in));
}

void copy_ub_to_ub(const local_ref& dst, const local_ref& src, uint32_t elem_size,
                   const copy_geometry& g, const char* api, call_site site) {
  state& s = current();
  if (empty(g)) return;
  check_ub_aligned(dst, api, site, "the UB destination");
  check_ub_aligned(src, api, site, "the UB source");
  check_whole_blocks(g, elem_size, api, site);
  const uint32_t dst_stride = g.bursts > 1 ? g.ub_stride : g.burst_bytes;
  const uint32_t src_stride = g.bursts > 1 ? g.ub_src_stride : g.burst_bytes;
  check_ub_range(src, src.addr, ub_extent(g, src_stride, g.burst_bytes), api, site,
                 "UB -> UB copy reads");
  check_ub_range(dst, dst.addr, ub_extent(g, dst_stride, g.burst_bytes), api, site,
                 "UB -> UB copy writes");
  const pipe on = local_copy_pipe(s, dst, src, api, site);  // V, or MTE1 for L1 -> C2
  for (uint32_t k = 0; k < g.bursts; ++k) {
    std::memmove(s.ub.get() + dst.addr + uint64_t{k} * dst_stride,
                 s.ub.get() + src.addr + uint64_t{k} * src_stride, g.burst_bytes);
  }
  if (!s.rec.on()) return;
  instruction in;
  in.on = on;
  in.cls = on == pipe::v ? op_class::dma_local : op_class::cube_load;
  in.api = api;
  in.line = site.line;
  in.bytes = uint64_t{g.bursts} * g.burst_bytes;
  in.repeats = static_cast<uint32_t>((in.bytes + 255) / 256);
  in.reads = rows(src.addr, g, src_stride, g.burst_bytes);
  in.writes = rows(dst.addr, g, dst_stride, g.burst_bytes);
  s.rec.add(std::move(in));
}

void set_pad_value(uint64_t bits) {
  state& s = current();
  s.pad_value = bits;
  s.pad_value_set = true;
}

void set_atomic(atomic_op op, dtype type) {
  state& s = current();
  s.atomic = op;
  s.atomic_type = type;
}

}  // namespace aopt_sim::rt
