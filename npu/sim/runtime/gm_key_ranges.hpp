// GM as one address space for the race detectors (hazard_detector.hpp, gm_cross_core_race.hpp):
// byte `offset` of kernel argument `region` (trace.hpp gm_runs) is the key region << 44 | offset.
// Every GM buffer of a launch is far below 2^44 bytes (the workspace is capped at 1 GiB), so keys
// of different arguments never meet.
#pragma once

#include <cstdint>
#include <vector>

#include "range_shadow.hpp"
#include "trace.hpp"

namespace aopt::sim {

constexpr unsigned gm_offset_bits = 44;

inline uint32_t gm_region_of(uint64_t key) {
  return static_cast<uint32_t>(key >> gm_offset_bits);
}
inline uint64_t gm_offset_of(uint64_t key) {
  return key & ((uint64_t{1} << gm_offset_bits) - 1);
}

// The runs of `g` as sorted, disjoint, non-empty key ranges; none when they reach past 2^44
// bytes, which no GM buffer holds.
std::vector<key_range> gm_key_ranges(const gm_runs& g);

}  // namespace aopt::sim
