#include "huge_page_memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <utility>

namespace aopt::sim {

huge_page_memory::huge_page_memory(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  const bool huge = bytes >= huge_page_bytes;
  // Room to move the start to a 2 MiB boundary: the kernel backs only aligned 2 MiB ranges with
  // a huge page.
  mapped_bytes_ = huge ? bytes + huge_page_bytes : bytes;
  void* p =
      mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    mapped_bytes_ = 0;
    throw std::bad_alloc();
  }
  mapping_ = static_cast<uint8_t*>(p);
  data_ = mapping_;
  if (!huge) return;
  const auto address = reinterpret_cast<uintptr_t>(mapping_);
  const uintptr_t aligned = (address + huge_page_bytes - 1) & ~uintptr_t{huge_page_bytes - 1};
  data_ = reinterpret_cast<uint8_t*>(aligned);
  const size_t span = (bytes + huge_page_bytes - 1) & ~(huge_page_bytes - 1);
  const size_t advised = std::min(span, mapped_bytes_ - (aligned - address));
  // Hints only (see the header): their failure leaves ordinary pages.
  (void)madvise(data_, advised, MADV_HUGEPAGE);
  (void)madvise(data_, bytes, MADV_POPULATE_WRITE);
}

huge_page_memory::~huge_page_memory() {
  release();
}

huge_page_memory::huge_page_memory(huge_page_memory&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

huge_page_memory& huge_page_memory::operator=(huge_page_memory&& other) noexcept {
  if (this != &other) {
    release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void huge_page_memory::release() {
  if (mapping_ != nullptr) munmap(mapping_, mapped_bytes_);
  mapping_ = nullptr;
  data_ = nullptr;
  mapped_bytes_ = 0;
  size_ = 0;
}

}  // namespace aopt::sim
