// The 3D LoadData of the kernel API shim (aopt_sim/kernel/cube.h): img2col of an L1 feature map
// into A2 on MTE1, in its two forms. Both describe a window of the img2col matrix (rows: output
// positions; columns: channel block, filter row, filter column, C0) and share one core that
// checks it, moves it and records one instruction: the v2 form names the window directly
// (mStartPt/mExtension x kStartPt/kExtension), the v1 form one 16 x C0 fractal from a window
// corner, a filter point and a channel block.
//
// Written from the public Load3D reference page (the Load3Dv1 and Load3Dv2 prototypes, the
// element types of each form) and the SetFmatrix page (l1H, l1W and padList, which both forms
// share). The v1 window parameters (c1Index, fetchFilterW/H, leftTopW/H) are read as the v2
// form's img2col matrix and their names describe them; the v1 parameter table itself was not
// available to this implementation, so its repeat parameters (repeatTime, repeatMode,
// jumpStride) and cSize are refused rather than guessed. What the pages leave open is refused
// as unsupported, naming the parameter and the row of docs/ascendc-api-coverage.md.
#include <algorithm>
#include <cstring>
#include <string>

#include "aopt_sim/kernel/cube.h"
#include "kernel_cube_operands.hpp"
#include "kernel_state.hpp"

namespace aopt::sim::kernel {
namespace {

using aopt_sim::rt::call_site;
using aopt_sim::rt::dtype;
using aopt_sim::rt::load3d_geometry;
using aopt_sim::rt::local_ref;

// What the rows past the last output position are filled with. The documentation does not say
// what the hardware writes there, so the shim writes the byte uninitialised local memory reads as
// (core_context.cpp): large and finite in every type, so that a result that depends on these
// rows mismatches while a Mmad over the whole fractal and a Fixpipe of the valid rows stay exact
// (row i of the product reads only row i of A).
constexpr uint8_t unspecified_row_byte = 0x7b;

// The call being checked: its API name in messages and traces, and its coverage row.
struct img2col_call {
  const char* api;
  const char* row;
  call_site site;

  [[noreturn]] void refuse(const std::string& what) const {
    fail("unsupported", cat(where(api, site), ": ", what,
                            " is not simulated (docs/ascendc-api-coverage.md, row \"", row, "\")"));
  }
  [[noreturn]] void bad(const std::string& what) const {
    fail("bad_argument", cat(where(api, site), ": ", what));
  }
};

// The output grid of the feature map `g` describes (after padding, filter, dilation, stride).
struct output_grid {
  uint64_t h = 0, w = 0;
  uint64_t positions() const { return h * w; }
};

output_grid grid_of(const load3d_geometry& g, const img2col_call& call) {
  if (g.stride_w == 0 || g.stride_h == 0 || g.filter_w == 0 || g.filter_h == 0 ||
      g.dilation_w == 0 || g.dilation_h == 0)
    call.bad("strideW/strideH, filterW/filterH and dilationFilterW/H must be at least 1");
  const uint64_t span_w = uint64_t{g.dilation_w} * (g.filter_w - 1) + 1;
  const uint64_t span_h = uint64_t{g.dilation_h} * (g.filter_h - 1) + 1;
  const uint64_t padded_w = uint64_t{g.l1_w} + g.pad_left + g.pad_right;
  const uint64_t padded_h = uint64_t{g.l1_h} + g.pad_top + g.pad_bottom;
  if (g.l1_w == 0 || g.l1_h == 0 || padded_w < span_w || padded_h < span_h)
    call.bad(cat("the filter (", g.filter_h, " x ", g.filter_w, ", dilation ", g.dilation_h, " x ",
                 g.dilation_w, ") does not fit the padded feature map (l1H ", g.l1_h, ", l1W ",
                 g.l1_w, ")"));
  return {(padded_h - span_h) / g.stride_h + 1, (padded_w - span_w) / g.stride_w + 1};
}

// The options and configuration the shim does not simulate, and the element size.
void refuse_open_semantics(const state& s, const local_ref& dst, uint32_t elem_size,
                           const load3d_geometry& g, const img2col_call& call) {
  if (space_of_ref(s, dst) != mem_space::l0a) call.refuse("the B1 -> B2 path (its B2 layout)");
  if (g.transpose) call.refuse("enTranspose");
  if (g.small_k) call.refuse("enSmallK");
  if (g.filter_size_w || g.filter_size_h) call.refuse("filterSizeW/filterSizeH (filters past 255)");
  if (g.fmatrix_ctrl) call.refuse("fMatrixCtrl (the right matrix's FMatrix)");
  if (!g.set_fmatrix) call.refuse("IsResetLoad3dConfig::isSetFMatrix = false (SetFmatrix)");
  if (!g.set_padding)
    call.refuse("IsResetLoad3dConfig::isSetPadding = false (SetLoadDataPaddingValue)");
  if (elem_size == 0 || c0_bytes % elem_size != 0)
    call.bad(cat("elements of ", elem_size, " bytes"));
}

// The img2col core: writes rows [m_start, m_start + m_ext) x columns [k_start, k_start + k_ext)
// of the img2col matrix of `g` into A2 (ZZ: 16 x C0 fractals in row-major order, each row-major;
// destination row i is matrix row m_start + i). The caller has checked the options
// (refuse_open_semantics), that k_start and k_ext are multiples of C0 and that m_start is an
// output position. Rows past the last output position get unspecified_row_byte.
void img2col(state& s, const local_ref& dst, const local_ref& src, uint32_t elem_size,
             const load3d_geometry& g, const output_grid& grid, const img2col_call& call) {
  const uint32_t c0 = c0_bytes / elem_size;
  const uint64_t k_total = uint64_t{g.channels} * g.filter_h * g.filter_w;
  if (uint64_t{g.k_start} + g.k_ext > k_total)
    call.bad(cat("kStartPt + kExtension = ", g.k_start + g.k_ext, " is past the img2col matrix's ",
                 k_total, " columns (channelSize x filterH x filterW)"));
  if (dst.addr % fractal_bytes != 0)
    fail("misaligned", cat(where(call.api, call.site), ": the L0 destination at ",
                           local_offset(s, dst), " is not 512-byte aligned"));
  if (src.addr % c0_bytes != 0)
    fail("misaligned", cat(where(call.api, call.site), ": the L1 source at ", local_offset(s, src),
                           " is not 32-byte aligned"));
  const uint32_t kb = g.k_ext / c0;
  // The source element of img2col entry (m, k), or -1 in the padding.
  auto source_of = [&](uint64_t m, uint64_t k) -> int64_t {
    const uint64_t oh = m / grid.w, ow = m % grid.w;
    const uint64_t c1 = k / (uint64_t{g.filter_h} * g.filter_w * c0);
    const uint64_t kh = (k / (uint64_t{g.filter_w} * c0)) % g.filter_h;
    const uint64_t kw = (k / c0) % g.filter_w;
    const int64_t ih = static_cast<int64_t>(oh * g.stride_h + kh * g.dilation_h) - g.pad_top;
    const int64_t iw = static_cast<int64_t>(ow * g.stride_w + kw * g.dilation_w) - g.pad_left;
    if (ih < 0 || iw < 0 || ih >= g.l1_h || iw >= g.l1_w) return -1;
    return static_cast<int64_t>(
        ((c1 * g.l1_h + static_cast<uint64_t>(ih)) * g.l1_w + static_cast<uint64_t>(iw)) * c0 +
        k % c0);
  };
  // Rows that are output positions read the map; the rest of the window is past them.
  const uint64_t valid_rows = std::min<uint64_t>(
      g.m_ext, grid.positions() - std::min<uint64_t>(g.m_start, grid.positions()));
  // Checks every read and write before moving anything; reads go by c0 runs.
  int64_t lo = -1, hi = -1;
  for (uint64_t m = g.m_start; m < g.m_start + valid_rows; ++m)
    for (uint64_t k = g.k_start; k < uint64_t{g.k_start} + g.k_ext; k += c0) {
      const int64_t e = source_of(m, k);
      if (e < 0) continue;
      if (lo < 0 || e < lo) lo = e;
      hi = std::max(hi, e + static_cast<int64_t>(c0));
    }
  // ZZ offset (bytes) of destination row `mi`, column block `kbi`.
  auto dst_offset = [&](uint32_t mi, uint32_t kbi) {
    return ((uint64_t{mi / cube_rows} * kb + kbi) * cube_rows + mi % cube_rows) * c0_bytes;
  };
  // The last row's last block bounds the write (a partial last fractal ends early).
  const uint64_t dst_end = dst.addr + dst_offset(g.m_ext - 1, kb - 1) + c0_bytes;
  check_ub_range(dst, dst.addr, dst_end - dst.addr, call.api, call.site, "the destination writes");
  uint64_t src_lo = src.addr, src_hi = src.addr;
  if (lo >= 0) {
    src_lo = src.addr + static_cast<uint64_t>(lo) * elem_size;
    src_hi = src.addr + static_cast<uint64_t>(hi) * elem_size;
    check_ub_range(src, src_lo, src_hi - src_lo, call.api, call.site, "the feature-map reads");
  }
  uint8_t* base = s.ub.get();
  for (uint32_t mi = 0; mi < g.m_ext; ++mi)
    for (uint32_t ki = 0; ki < g.k_ext; ki += c0) {
      uint8_t* to = base + dst.addr + dst_offset(mi, ki / c0);
      if (mi >= valid_rows) {
        std::memset(to, unspecified_row_byte, c0_bytes);
        continue;
      }
      const int64_t e = source_of(uint64_t{g.m_start} + mi, uint64_t{g.k_start} + ki);
      if (e >= 0) {
        std::memcpy(to, base + src.addr + static_cast<uint64_t>(e) * elem_size, c0_bytes);
        continue;
      }
      for (uint32_t j = 0; j < c0; ++j) std::memcpy(to + j * elem_size, &g.pad_bits, elem_size);
    }
  if (!s.rec.on()) return;
  // Timed like the 2D form: by the bytes written into L0.
  instruction in = cube_instruction(pipe::mte1, op_class::cube_load, call.api, call.site);
  in.bytes = uint64_t{g.m_ext} * g.k_ext * elem_size;
  if (lo >= 0) in.reads.push_back({static_cast<uint32_t>(src_lo), static_cast<uint32_t>(src_hi)});
  in.writes.push_back({dst.addr, static_cast<uint32_t>(dst_end)});
  s.rec.add(std::move(in));
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void cube_load_3d(const local_ref& dst, const local_ref& src, uint32_t elem_size,
                  const load3d_geometry& g, call_site site) {
  const img2col_call call{"LoadData (LoadData3DParamsV2)", "LoadData3DParamsV2", site};
  state& s = current();
  require_space(s, src, {mem_space::l1}, call.api, site, "the source", "A1/B1 (L1)");
  require_space(s, dst, {mem_space::l0a, mem_space::l0b}, call.api, site, "the destination",
                "A2 (L0A) or B2 (L0B)");
  refuse_open_semantics(s, dst, elem_size, g, call);
  const uint32_t c0 = c0_bytes / elem_size;
  if (g.channels == 0 || g.channels % c0 != 0)
    call.refuse(cat("channelSize ", g.channels, " (not a multiple of C0 = ", c0, ")"));
  if (g.k_ext % c0 != 0 || g.k_start % c0 != 0)
    call.refuse(cat("kExtension ", g.k_ext, " / kStartPt ", g.k_start,
                    " (not multiples of C0 = ", c0, ")"));
  // mStartPt starts a fractal of A2; mExtension may end inside one (a ragged last fractal).
  if (g.m_start % cube_rows != 0)
    call.refuse(cat("mStartPt ", g.m_start, " (not a multiple of 16)"));
  if (g.k_ext == 0 || g.m_ext == 0) return;
  const output_grid grid = grid_of(g, call);
  if (g.m_start >= grid.positions())
    call.bad(cat("mStartPt ", g.m_start, " is past the ", grid.positions(), " output positions (",
                 grid.h, " x ", grid.w, ")"));
  // Rows past the last output position are written (unspecified) up to the end of the fractal
  // that holds it; whole fractals past it are a window the documentation does not describe.
  const uint64_t last_fractal_end =
      uint64_t{ceil_div(static_cast<uint32_t>(grid.positions()), cube_rows)} * cube_rows;
  if (uint64_t{g.m_start} + g.m_ext > last_fractal_end)
    call.refuse(cat("mStartPt + mExtension = ", g.m_start + g.m_ext, " past the fractal (row ",
                    last_fractal_end, ") that holds the last of the ", grid.positions(),
                    " output positions (", grid.h, " x ", grid.w, ")"));
  img2col(s, dst, src, elem_size, g, grid, call);
}

void cube_load_3d_v1(const local_ref& dst, const local_ref& src, dtype t,
                     const load3d_geometry& map, const load3d_v1_window& w, call_site site) {
  const img2col_call call{"LoadData (LoadData3DParamsV1)", "LoadData3DParamsV1", site};
  state& s = current();
  require_space(s, src, {mem_space::l1}, call.api, site, "the source", "A1/B1 (L1)");
  require_space(s, dst, {mem_space::l0a, mem_space::l0b}, call.api, site, "the destination",
                "A2 (L0A) or B2 (L0B)");
  // The Load3D page's template table lists the v1 form's element types.
  if (t != dtype::f16 && t != dtype::i8 && t != dtype::u8)
    call.bad(cat(dtype_name(t),
                 " elements (the v1 form is documented for uint8_t, int8_t and "
                 "half; LoadData3DParamsV2 takes the others)"));
  const uint32_t elem_size = dtype_size(t);
  refuse_open_semantics(s, dst, elem_size, map, call);
  if (w.c_size != 0) call.refuse(cat("cSize ", uint32_t{w.c_size}, " (the small-channel mode)"));
  // One repeat needs neither the order of the repeats nor the destination step between them.
  if (w.repeat_time != 1)
    call.refuse(cat("repeatTime ", uint32_t{w.repeat_time},
                    " (more than one fractal per call: repeatMode and jumpStride)"));
  const output_grid grid = grid_of(map, call);
  if (w.fetch_w >= map.filter_w || w.fetch_h >= map.filter_h)
    call.bad(cat("the filter point (fetchFilterH ", uint32_t{w.fetch_h}, ", fetchFilterW ",
                 uint32_t{w.fetch_w}, ") is outside the ", uint32_t{map.filter_h}, " x ",
                 uint32_t{map.filter_w}, " filter"));
  // The window corner in padded coordinates must be that of an output position.
  const int64_t corner_w = int64_t{w.left_top_w} + map.pad_left;
  const int64_t corner_h = int64_t{w.left_top_h} + map.pad_top;
  if (corner_w < 0 || corner_h < 0)
    call.bad(cat("the window corner (leftTopH ", w.left_top_h, ", leftTopW ", w.left_top_w,
                 ") is outside the padding (top ", map.pad_top, ", left ", map.pad_left, ")"));
  if (corner_w % map.stride_w != 0 || corner_h % map.stride_h != 0)
    call.refuse(cat("a window corner (leftTopH ", w.left_top_h, ", leftTopW ", w.left_top_w,
                    ") off the output grid of strides ", uint32_t{map.stride_h}, " x ",
                    uint32_t{map.stride_w}));
  const uint64_t oh = static_cast<uint64_t>(corner_h) / map.stride_h;
  const uint64_t ow = static_cast<uint64_t>(corner_w) / map.stride_w;
  if (oh >= grid.h || ow >= grid.w)
    call.bad(cat("the window corner (leftTopH ", w.left_top_h, ", leftTopW ", w.left_top_w,
                 ") is no output position of the ", grid.h, " x ", grid.w, " output"));
  const uint32_t c0 = c0_bytes / elem_size;
  load3d_geometry g = map;
  // The fractal is the img2col window of 16 rows from that position and the C0 columns of
  // (c1Index, fetchFilterH, fetchFilterW); the channel count only bounds the columns.
  g.channels = (uint32_t{w.c1_index} + 1) * c0;
  g.k_start = ((uint32_t{w.c1_index} * map.filter_h + w.fetch_h) * map.filter_w + w.fetch_w) * c0;
  g.k_ext = c0;
  g.m_start = static_cast<uint32_t>(oh * grid.w + ow);
  g.m_ext = cube_rows;
  img2col(s, dst, src, elem_size, g, grid, call);
}

}  // namespace aopt_sim::rt
