#include "gm_key_ranges.hpp"

namespace aopt::sim {

std::vector<key_range> gm_key_ranges(const gm_runs& g) {
  std::vector<key_range> out;
  if (g.bursts == 0 || g.burst_bytes == 0) return out;
  constexpr uint64_t limit = uint64_t{1} << gm_offset_bits;
  const uint64_t last = g.bursts - 1;
  // Overflow-safe: the last run must end below the limit.
  if (g.offset >= limit || (last != 0 && g.stride > (limit - g.offset) / last) ||
      g.offset + last * g.stride + g.burst_bytes > limit) {
    return out;
  }
  const uint64_t base = uint64_t{g.region} << gm_offset_bits;
  // Runs that touch or overlap (a stride no longer than a burst) are one range.
  if (g.bursts == 1 || g.stride <= g.burst_bytes) {
    out.push_back({base + g.offset, base + g.offset + last * g.stride + g.burst_bytes});
    return out;
  }
  out.reserve(g.bursts);
  for (uint64_t k = 0; k <= last; ++k) {
    const uint64_t begin = base + g.offset + k * g.stride;
    out.push_back({begin, begin + g.burst_bytes});
  }
  return out;
}

}  // namespace aopt::sim
