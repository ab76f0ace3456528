// A one-shot signal: one thread raises it, others learn of it by polling a descriptor. Work that
// waits on a child process (subprocess_options::cancel_fd) wakes the moment it is raised, so a
// verdict reached elsewhere (the static screen refusing the code a compiler is still building)
// stops that work instead of letting it run to its end or its timeout.
//
//   aopt::cancellation stop;
//   o.cancel_fd = stop.fd();          // the child's supervisor polls it
//   ... on another thread: stop.cancel();
//   if (r->cancelled) ...             // the child was killed because of it
//
// Thread-safety: cancel() and cancelled() may be called from any thread at any time.
#pragma once

#include <atomic>

#include "base/unique_fd.hpp"

namespace aopt {

class cancellation {
 public:
  // Throws std::system_error when the kernel gives no eventfd.
  cancellation();

  // Raises the signal; later calls do nothing. The descriptor stays readable from now on.
  void cancel() noexcept;
  bool cancelled() const noexcept { return raised_.load(std::memory_order_acquire); }
  // Readable (POLLIN) once cancel() was called. Owned by this object.
  int fd() const { return fd_.get(); }

 private:
  unique_fd fd_;
  std::atomic<bool> raised_{false};
};

}  // namespace aopt
