#include "npu/sim/device/sealed_memfd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace aopt::npu {

namespace {

status errno_error(const char* name, const std::string& what) {
  return internal_error(std::string(name) + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

result<unique_fd> sealed_memfd(const char* name, const std::vector<byte_span>& parts) {
  unique_fd fd(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return errno_error(name, "memfd_create");
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
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) !=
      0) {
    return errno_error(name, "sealing");
  }
  return fd;
}

}  // namespace aopt::npu
