// Snapshots of many small byte runs (the data of each traced GM write) kept in large chunks of
// huge-page memory (huge_page_memory.hpp) instead of one heap allocation each: the heap grows a
// 4 KiB page at a time, and each fresh page costs a fault on the machines this runs on. A run's
// bytes are handed out as a byte_block that keeps its chunk alive, so the snapshots outlive the
// arena. Consecutive runs are adjacent in a chunk while it has room, so a run that continues the
// previous one can extend its block in place (extend).
//
// Thread-compatible: one thread at a time (the blocks of a launch take turns, block_runner.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "byte_block.hpp"
#include "huge_page_memory.hpp"

namespace aopt::sim {

class byte_arena {
 public:
  // Chunks start at one huge page and double up to the largest, so a small operator's writes
  // cost one page and a large one's a few chunks.
  static constexpr size_t first_chunk_bytes = huge_page_memory::huge_page_bytes;
  static constexpr size_t largest_chunk_bytes = size_t{32} << 20;

  // `bursts` runs of `burst_bytes`, one every `stride` bytes from `first`, copied back to back.
  byte_block copy_runs(const uint8_t* first, uint64_t stride, uint32_t burst_bytes,
                       uint32_t bursts);

  // `block` followed by `next` as one block, when `next` starts where `block` ends in the same
  // chunk (the usual case for two copy_runs in a row); otherwise false and nothing changes.
  static bool extend(byte_block& block, const byte_block& next);

 private:
  std::shared_ptr<huge_page_memory> chunk_;
  size_t used_ = 0;
  size_t next_chunk_bytes_ = first_chunk_bytes;
};

}  // namespace aopt::sim
