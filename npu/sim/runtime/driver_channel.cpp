#include "driver_channel.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace aopt::sim {

delivery_channel::delivery_channel() {
  std::fflush(stdout);
  fd_ = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

bool delivery_channel::deliver(const std::string& bytes) {
  if (fd_ < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void delivery_channel::exit_delivered() {
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace aopt::sim
