#include "npu/sim/device/sealed_memfd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "npu/sim/runtime/huge_page_memory.hpp"

namespace aopt::npu {

namespace {

status errno_error(const char* name, const std::string& what) {
  return internal_error(std::string(name) + ": " + what + ": " + std::strerror(errno));
}

status seal(const char* name, int fd) {
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    return errno_error(name, "sealing");
  }
  return {};
}

// Takes the file's pages in one call: written or mapped page by page, a memory file costs a fault
// per page, ten times the copy on a machine that shadows page tables (docs/architecture.md).
status take_pages(const char* name, int fd, uint64_t bytes) {
  if (bytes != 0 && ::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) != 0) {
    return errno_error(name, "allocating");
  }
  return {};
}

}  // namespace

result<unique_fd> sealed_memfd(const char* name, const std::vector<byte_span>& parts) {
  unique_fd fd(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return errno_error(name, "memfd_create");
  uint64_t total = 0;
  for (const byte_span& part : parts) total += part.size;
  if (status taken = take_pages(name, fd.get(), total); !taken.ok()) return taken;
  for (const byte_span& part : parts) {
    const auto* bytes = static_cast<const char*>(part.data);
    size_t written = 0;
    while (written < part.size) {
      const ssize_t n = ::write(fd.get(), bytes + written, part.size - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return errno_error(name, "writing");
      written += static_cast<size_t>(n);
    }
  }
  if (status sealed = seal(name, fd.get()); !sealed.ok()) return sealed;
  return fd;
}

result<unique_fd> sealed_memfd_filled(const char* name, uint64_t bytes,
                                      const std::function<void(uint8_t*)>& fill) {
  if (bytes == 0) return sealed_memfd(name, {});
  // Made in anonymous memory on huge pages, then written at once: a memory file's own pages
  // cannot be huge here (shmem), and filled through a mapping they cost a fault each.
  aopt::sim::huge_page_memory buffer;
  try {
    buffer = aopt::sim::huge_page_memory(bytes);
  } catch (const std::bad_alloc&) {
    return errno_error(name, "allocating a buffer");
  }
  uint8_t* p = buffer.data();
  fill(p);
  return sealed_memfd(name, {{p, static_cast<size_t>(bytes)}});
}

}  // namespace aopt::npu
