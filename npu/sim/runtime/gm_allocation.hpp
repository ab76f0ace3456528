// How the driver lays out a simulated GM buffer, which the trusted checker rebuilds to replay
// the kernel's GM reads (gm_read_check.hpp): the tensor's bytes, then CANN's allocation padding
// and an over-read zone, both poisoned; the workspace starts poisoned too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aopt::sim {

// Simulated GM allocations start on 512-byte boundaries, like the device allocator's, so the
// timing model's alignment penalty reflects the kernel's offsets only.
inline constexpr size_t gm_alignment = 512;
inline constexpr uint8_t workspace_poison_byte = 0x5A;
// What a read past a tensor's end finds: CANN's aclrtMalloc rounds every size up to 32 bytes
// and adds 32, so reads up to there are legal; beyond it the hardware reads whatever allocation
// follows. The simulator lets reads reach one more KiB past the padding, with a warning, over
// poison (the UB poison: large finite values, so a value read there that reaches an output
// mismatches). That holds the block-granular tail reads of real kernels (a 16-float read of a
// 7-float box, a 64-RoI block) while a runaway index still stops at gm_out_of_bounds.
inline constexpr uint64_t gm_padding_block = 32;
inline constexpr uint64_t gm_over_read_bytes = 1024;
inline constexpr uint8_t gm_tail_poison_byte = 0x7b;

inline uint64_t cann_padding(uint64_t bytes) {
  return (bytes + gm_padding_block - 1) / gm_padding_block * gm_padding_block + gm_padding_block -
         bytes;
}

// The allocation padding after a buffer of `bytes` (none after an empty one).
inline uint64_t gm_padding_bytes(uint64_t bytes) {
  return bytes != 0 ? cann_padding(bytes) : 0;
}

// The padding and over-read zone after a buffer of `bytes` (none after an empty one).
inline uint64_t gm_tail_bytes(uint64_t bytes) {
  return bytes != 0 ? cann_padding(bytes) + gm_over_read_bytes : 0;
}

}  // namespace aopt::sim
