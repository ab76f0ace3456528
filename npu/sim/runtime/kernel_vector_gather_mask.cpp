// GatherMask and Gatherb (runtime_api.h vec_gather_mask, vec_gatherb): element selection by a
// built-in or a user bit pattern, and a gather of 32-byte blocks by byte offsets, written from
// the public AscendC documentation. Only bytes move, so one implementation serves every element
// type of a size.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernel_state.hpp"
#include "kernel_vector.hpp"
#include "trace_recorder.hpp"

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

namespace {

constexpr uint32_t block_bytes = 32;
constexpr uint32_t repeat_bytes = 256;
constexpr size_t max_ranges = 16;  // footprint ranges kept per operand (joined beyond that)

// Built-in patterns 1..7 (bit i of a repeat selects element i): 1 even indexes, 2 odd indexes,
// 3..6 the first..fourth of every four, 7 every element.
bool fixed_selects(uint8_t pattern, uint64_t i) {
  switch (pattern) {
    case 1:
      return i % 2 == 0;
    case 2:
      return i % 2 == 1;
    case 3:
    case 4:
    case 5:
    case 6:
      return i % 4 == static_cast<uint64_t>(pattern - 3);
    default:
      return true;
  }
}

}  // namespace

uint64_t vec_gather_mask(uint32_t elem_size, const local_ref& dst, const local_ref& src0,
                         const local_ref* pattern, uint8_t fixed_pattern, bool reduce_mode,
                         uint32_t mask, const gather_mask_params& p, call_site site) {
  const char* api = "GatherMask";
  state& s = current();
  if (pattern == nullptr && (fixed_pattern < 1 || fixed_pattern > 7)) {
    fail("bad_argument", cat(where(api, site), ": built-in src1Pattern ", uint32_t{fixed_pattern},
                             " is outside 1..7"));
  }
  if (reduce_mode && mask == 0) {
    fail("bad_argument", cat(where(api, site),
                             ": reduceMode true (counter mode) takes a mask of 1..2^32-1 "
                             "elements per repeat, got 0"));
  }
  // A repeat covers 256 bytes in normal mode and `mask` elements in counter mode (the A2/A3
  // form, "configuration one"; the simulator's profiles are A2 chips).
  const uint64_t per_repeat = reduce_mode ? mask : repeat_bytes / elem_size;
  const uint64_t per_block = block_bytes / elem_size;
  const uint64_t pattern_bits = uint64_t{elem_size} * 8;
  check_ub_aligned(dst, api, site, "dst");
  check_ub_aligned(src0, api, site, "src0");
  if (pattern != nullptr) check_ub_aligned(*pattern, api, site, "src1Pattern");

  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::v;
  in.cls = aopt::sim::op_class::vec_compare_select;
  in.api = api;
  in.line = site.line;
  std::vector<uint8_t> gathered;
  gathered.reserve(per_repeat * p.repeatTimes * elem_size);
  for (uint64_t r = 0; r < p.repeatTimes; ++r) {
    const uint64_t src_base = uint64_t{src0.addr} + r * p.src0RepeatStride * block_bytes;
    const uint64_t blocks = (per_repeat + per_block - 1) / per_block;
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint64_t begin = src_base + b * p.src0BlockStride * block_bytes;
      const uint64_t bytes = std::min(per_block, per_repeat - b * per_block) * elem_size;
      check_ub_read_range(s, src0, begin, bytes, api, site, "src0 reads");
      aopt::sim::merge_range(in.reads,
                             {static_cast<uint32_t>(begin), static_cast<uint32_t>(begin + bytes)},
                             max_ranges);
    }
    uint64_t pattern_base = 0;
    if (pattern != nullptr) {
      pattern_base = uint64_t{pattern->addr} + r * p.src1RepeatStride * block_bytes;
      const uint64_t bytes = (per_repeat + pattern_bits - 1) / pattern_bits * elem_size;
      check_ub_range(*pattern, pattern_base, bytes, api, site, "src1Pattern reads");
      aopt::sim::merge_range(
          in.reads,
          {static_cast<uint32_t>(pattern_base), static_cast<uint32_t>(pattern_base + bytes)},
          max_ranges);
    }
    for (uint64_t i = 0; i < per_repeat; ++i) {
      bool take = false;
      if (pattern == nullptr) {
        take = fixed_selects(fixed_pattern, i);
      } else {
        const uint8_t byte =
            s.ub.get()[pattern_base + (i / pattern_bits) * elem_size + (i % pattern_bits) / 8];
        take = ((byte >> (i % 8)) & 1) != 0;
      }
      if (!take) continue;
      const uint8_t* e = s.ub.get() + src_base + (i / per_block) * p.src0BlockStride * block_bytes +
                         (i % per_block) * elem_size;
      gathered.insert(gathered.end(), e, e + elem_size);
    }
  }
  const uint64_t kept = gathered.size() / elem_size;
  check_ub_range(dst, dst.addr, gathered.size(), api, site, "dst writes");
  if (!gathered.empty()) std::memcpy(s.ub.get() + dst.addr, gathered.data(), gathered.size());
  // Documented: the instruction leaves the vector unit in normal mask mode.
  s.counter_mode = false;
  if (p.repeatTimes == 0) return kept;
  if (kept > 0) in.writes.push_back({dst.addr, static_cast<uint32_t>(dst.addr + gathered.size())});
  in.bytes = per_repeat * p.repeatTimes * elem_size;
  in.repeats =
      static_cast<uint32_t>(std::max<uint64_t>(1, (in.bytes + repeat_bytes - 1) / repeat_bytes));
  s.rec.add(std::move(in));
  return kept;
}

void vec_gatherb(const local_ref& dst, const local_ref& src0, const local_ref& offset,
                 uint8_t repeat_time, uint16_t dst_blk_stride, uint16_t dst_rep_stride,
                 call_site site) {
  const char* api = "Gatherb";
  state& s = current();
  if (repeat_time == 0)
    fail("bad_argument", cat(where(api, site), ": repeatTime is 1..255, got 0"));
  check_ub_aligned(dst, api, site, "dst");
  check_ub_aligned(src0, api, site, "src0");
  check_ub_aligned(offset, api, site, "offset");
  const uint64_t blocks = uint64_t{repeat_time} * 8;  // 8 blocks a repeat, one offset each
  check_ub_range(offset, offset.addr, blocks * 4, api, site, "offset reads");
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::v;
  in.cls = aopt::sim::op_class::vec_simple;
  in.api = api;
  in.line = site.line;
  aopt::sim::merge_range(in.reads, {offset.addr, static_cast<uint32_t>(offset.addr + blocks * 4)},
                         max_ranges);
  std::vector<uint8_t> gathered(blocks * block_bytes);
  for (uint64_t b = 0; b < blocks; ++b) {
    uint32_t off = 0;
    std::memcpy(&off, s.ub.get() + offset.addr + b * 4, 4);
    if (off % block_bytes != 0) {
      fail("misaligned", cat(where(api, site), ": offset[", b, "] = ", off,
                             " bytes; src0 + offset must stay 32-byte aligned"));
    }
    const uint64_t from = uint64_t{src0.addr} + off;
    check_ub_range(src0, from, block_bytes, api, site,
                   [b] { return cat("src0 block ", b, " reads"); });
    aopt::sim::merge_range(in.reads,
                           {static_cast<uint32_t>(from), static_cast<uint32_t>(from + block_bytes)},
                           max_ranges);
    std::memcpy(gathered.data() + b * block_bytes, s.ub.get() + from, block_bytes);
  }
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t to =
        uint64_t{dst.addr} + ((b / 8) * dst_rep_stride + (b % 8) * dst_blk_stride) * block_bytes;
    check_ub_range(dst, to, block_bytes, api, site,
                   [b] { return cat("dst block ", b, " writes"); });
    aopt::sim::merge_range(in.writes,
                           {static_cast<uint32_t>(to), static_cast<uint32_t>(to + block_bytes)},
                           max_ranges);
  }
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t to =
        uint64_t{dst.addr} + ((b / 8) * dst_rep_stride + (b % 8) * dst_blk_stride) * block_bytes;
    std::memcpy(s.ub.get() + to, gathered.data() + b * block_bytes, block_bytes);
  }
  in.bytes = blocks * block_bytes;
  in.repeats = repeat_time;
  s.rec.add(std::move(in));
}

}  // namespace aopt_sim::rt
