// The bytes of a whole sealed descriptor (an input set, a delivery, the expected outputs), read
// once, released when it goes. A memory file's pages are never huge here (shmem), and under a
// hypervisor that shadows page tables each 4 KiB page mapped costs a fault of microseconds on
// first touch; so a large descriptor is read into huge-page memory (huge_page_memory.hpp), one
// copy at memory speed, and a small one is mapped.
//
// Thread-safety: immutable once constructed.
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "huge_page_memory.hpp"

namespace aopt::sim {

class read_mapping {
 public:
  // The first `bytes` bytes of `fd`. Throws std::runtime_error naming the descriptor.
  read_mapping(int fd, uint64_t bytes) : bytes_(bytes) {
    if (bytes_ == 0) return;
    if (bytes_ >= huge_page_memory::huge_page_bytes) {
      copy_ = huge_page_memory(bytes_);
      for (uint64_t at = 0; at < bytes_;) {
        const ssize_t got = ::pread(fd, copy_.data() + at, bytes_ - at, static_cast<off_t>(at));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          throw std::runtime_error("descriptor " + std::to_string(fd) + ": cannot read it: " +
                                   (got < 0 ? std::strerror(errno) : "it ended early"));
        }
        at += static_cast<uint64_t>(got);
      }
      data_ = copy_.data();
      return;
    }
    void* p = ::mmap(nullptr, bytes_, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      throw std::runtime_error("descriptor " + std::to_string(fd) +
                               ": cannot map it: " + std::strerror(errno));
    }
    data_ = static_cast<const uint8_t*>(p);
  }
  // All of `fd`, as fstat sizes it (a sealed memfd cannot change size).
  static read_mapping whole(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      throw std::runtime_error("descriptor " + std::to_string(fd) +
                               ": cannot stat it: " + std::strerror(errno));
    }
    return read_mapping(fd, static_cast<uint64_t>(st.st_size));
  }
  read_mapping(read_mapping&& other) noexcept
      : data_(other.data_), bytes_(other.bytes_), copy_(std::move(other.copy_)) {
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  read_mapping(const read_mapping&) = delete;
  read_mapping& operator=(const read_mapping&) = delete;
  read_mapping& operator=(read_mapping&&) = delete;
  ~read_mapping() {
    if (data_ != nullptr && copy_.data() == nullptr) ::munmap(const_cast<uint8_t*>(data_), bytes_);
  }

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return bytes_; }
  std::string_view view() const {
    return data_ == nullptr ? std::string_view()
                            : std::string_view(reinterpret_cast<const char*>(data_), bytes_);
  }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t bytes_ = 0;
  huge_page_memory copy_;  // a large descriptor's bytes
};

}  // namespace aopt::sim
