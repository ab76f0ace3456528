// Fresh memory for the simulator's large buffers (simulated GM, the judge's copies of a
// delivery), backed by transparent huge pages where the kernel has them.
//
// Why: under a hypervisor that shadows the guest's page tables (this project's CI machines), the
// first touch of each 4 KiB page of fresh memory costs microseconds, however it is touched: an
// 8 MiB tensor copied into fresh memory paid ~2,000 such faults, and the copies of inputs into
// simulated GM were most of a candidate's page faults. Memory mapped at a 2 MiB boundary, advised
// MADV_HUGEPAGE and populated in one call (MADV_POPULATE_WRITE) costs one fault per 2 MiB.
// Both advices are hints: a kernel without them, or without huge pages to give, leaves ordinary
// pages, and the contents are the same either way (zeros).
#pragma once

#include <cstddef>
#include <cstdint>

namespace aopt::sim {

class huge_page_memory {
 public:
  huge_page_memory() = default;
  // `bytes` of zeroed, writable memory; bytes == 0 maps nothing. Throws std::bad_alloc when the
  // mapping fails.
  explicit huge_page_memory(size_t bytes);
  ~huge_page_memory();
  huge_page_memory(huge_page_memory&& other) noexcept;
  huge_page_memory& operator=(huge_page_memory&& other) noexcept;
  huge_page_memory(const huge_page_memory&) = delete;
  huge_page_memory& operator=(const huge_page_memory&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  // Below this, memory comes from ordinary pages (a huge page would be mostly unused).
  static constexpr size_t huge_page_bytes = size_t{2} << 20;

 private:
  void release();

  uint8_t* mapping_ = nullptr;  // what munmap gets
  size_t mapped_bytes_ = 0;
  uint8_t* data_ = nullptr;  // the 2 MiB-aligned start inside the mapping
  size_t size_ = 0;
};

}  // namespace aopt::sim
