#include "base/cancellation.hpp"

#include <sys/eventfd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace aopt {

cancellation::cancellation() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!fd_.valid()) throw std::system_error(errno, std::generic_category(), "eventfd");
}

void cancellation::cancel() noexcept {
  if (raised_.exchange(true, std::memory_order_acq_rel)) return;
  // Nobody reads the counter, so the descriptor stays readable for every poller. A failed write
  // (only an overflow, impossible for one increment) leaves pollers to their own deadline.
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(fd_.get(), &one, sizeof(one));
}

}  // namespace aopt
