#include "byte_arena.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace aopt::sim {

byte_block byte_arena::copy_runs(const uint8_t* first, uint64_t stride, uint32_t burst_bytes,
                                 uint32_t bursts) {
  const size_t bytes = size_t{burst_bytes} * bursts;
  if (bytes == 0) return {};
  if (!chunk_ || chunk_->size() - used_ < bytes) {
    chunk_ = std::make_shared<huge_page_memory>(std::max(next_chunk_bytes_, bytes));
    next_chunk_bytes_ = std::min(largest_chunk_bytes, next_chunk_bytes_ * 2);
    used_ = 0;
  }
  uint8_t* to = chunk_->data() + used_;
  for (uint32_t k = 0; k < bursts; ++k) {
    std::memcpy(to + size_t{burst_bytes} * k, first + stride * k, burst_bytes);
  }
  used_ += bytes;
  return byte_block::adopt(chunk_, to, bytes);
}

bool byte_arena::extend(byte_block& block, const byte_block& next) {
  if (!block.is_view() || !next.is_view() || block.holder() == nullptr ||
      block.holder() != next.holder() || block.end() != next.begin()) {
    return false;
  }
  block = byte_block::adopt(block.holder(), block.data(), block.size() + next.size());
  return true;
}

}  // namespace aopt::sim
