// TransDataTo5HD of the kernel shim (runtime_api.h vec_trans_data_5hd): the NCHW -> NC1HWC0
// address-list transpose. Each repeat gathers one element position from 16 source blocks into
// the destination blocks; the instruction is traced with the blocks it actually reads and
// writes (a list entry's blocks merge into one range when its repeats are contiguous).
#include <algorithm>
#include <array>
#include <cstring>

#include "kernel_state.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

constexpr uint32_t list_size = 16;  // NCHW_CONV_ADDR_LIST_SIZE
constexpr uint32_t block = 32;

// UB offsets of the `repeats` blocks of one list entry, checked against its tensor's buffer.
struct entry_blocks {
  uint32_t first = 0;
  uint32_t stride = 0;  // bytes between repeats
};

entry_blocks check_entry(const aopt_sim::rt::local_ref& t, uint32_t repeats, uint16_t rep_stride,
                         uint32_t i, bool write, aopt_sim::rt::call_site site) {
  const char* api = "TransDataTo5HD";
  const std::string name = cat(write ? "dstList[" : "srcList[", i, "]");
  check_ub_aligned(t, api, site, name.c_str());
  entry_blocks e{t.addr, uint32_t{rep_stride} * block};
  const uint64_t span = uint64_t{repeats - 1} * e.stride + block;
  check_ub_range(t, t.addr, span, api, site,
                 [&] { return cat(name, write ? " writes" : " reads"); });
  return e;
}

// The UB ranges an entry's blocks cover: one when they abut or coincide, else one per repeat.
void add_ranges(std::vector<ub_range>& out, const entry_blocks& e, uint32_t repeats) {
  if (e.stride <= block) {
    out.push_back({e.first, e.first + (repeats - 1) * e.stride + block});
    return;
  }
  for (uint32_t r = 0; r < repeats; ++r)
    out.push_back({e.first + r * e.stride, e.first + r * e.stride + block});
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void vec_trans_data_5hd(uint32_t elem_size, const local_ref* dst, const local_ref* src,
                        bool dst_high_half, bool src_high_half, uint32_t repeats,
                        uint16_t dst_rep_stride, uint16_t src_rep_stride, call_site site) {
  const char* api = "TransDataTo5HD";
  if (elem_size != 1 && elem_size != 2 && elem_size != 4) {
    fail("bad_argument", cat(where(api, site), ": ", elem_size,
                             "-byte elements (1, 2 or 4-byte types are documented)"));
  }
  if (repeats > 255)
    fail("bad_argument", cat(where(api, site), ": repeatTimes ", repeats, " exceeds 255"));
  if (repeats == 0) return;
  state& s = current();
  std::array<entry_blocks, list_size> d{}, from{};
  for (uint32_t i = 0; i < list_size; ++i) {
    d[i] = check_entry(dst[i], repeats, dst_rep_stride, i, true, site);
    from[i] = check_entry(src[i], repeats, src_rep_stride, i, false, site);
  }
  uint8_t* ub = s.ub.get();
  for (uint32_t r = 0; r < repeats; ++r) {
    // Staged, so a destination block that is also a source reads the values from before.
    std::array<std::array<uint8_t, block>, list_size> in{};
    for (uint32_t i = 0; i < list_size; ++i)
      std::memcpy(in[i].data(), ub + from[i].first + r * from[i].stride, block);
    auto out = [&](uint32_t j) { return ub + d[j].first + r * d[j].stride; };
    if (elem_size == 2) {
      // Destination block j holds element j of source blocks 0..15.
      for (uint32_t j = 0; j < list_size; ++j)
        for (uint32_t i = 0; i < list_size; ++i) std::memcpy(out(j) + i * 2, &in[i][j * 2], 2);
    } else if (elem_size == 4) {
      // Element j of source blocks 0..7 fills block 2j, of blocks 8..15 block 2j + 1.
      for (uint32_t j = 0; j < block / 4; ++j)
        for (uint32_t i = 0; i < list_size; ++i)
          std::memcpy(out(2 * j + i / 8) + (i % 8) * 4, &in[i][j * 4], 4);
    } else {
      // Byte j of each source block's chosen half fills the chosen half of block j.
      const uint32_t src_half = src_high_half ? block / 2 : 0;
      const uint32_t dst_half = dst_high_half ? block / 2 : 0;
      for (uint32_t j = 0; j < list_size; ++j)
        for (uint32_t i = 0; i < list_size; ++i) out(j)[dst_half + i] = in[i][src_half + j];
    }
  }
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::v;
  in.cls = aopt::sim::op_class::vec_simple;
  in.api = api;
  in.line = site.line;
  // Each repeat reads and writes 16 blocks (8-bit types: half of each), one repeat per 256 bytes.
  const uint64_t moved = uint64_t{repeats} * list_size * (elem_size == 1 ? block / 2 : block);
  in.bytes = moved;
  in.repeats = static_cast<uint32_t>(std::max<uint64_t>(1, (moved + 255) / 256));
  for (uint32_t i = 0; i < list_size; ++i) {
    add_ranges(in.reads, from[i], repeats);
    add_ranges(in.writes, d[i], repeats);
  }
  s.rec.add(std::move(in));
}

}  // namespace aopt_sim::rt
