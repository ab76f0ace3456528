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

// Raises a cancellation when the scope ends, unless release() came first: work started beside
// the scope stops when the scope is left early, by a return or an exception.
//
//   aopt::cancel_on_exit stop_unless_taken(stop);  // after the future of the work it stops
//   ... may return or throw ...
//   stop_unless_taken.release();
//   auto value = future.get();
class cancel_on_exit {
 public:
  explicit cancel_on_exit(cancellation& signal) noexcept : signal_(&signal) {}
  ~cancel_on_exit() {
    if (signal_ != nullptr) signal_->cancel();
  }
  cancel_on_exit(const cancel_on_exit&) = delete;
  cancel_on_exit& operator=(const cancel_on_exit&) = delete;

  void release() noexcept { signal_ = nullptr; }

 private:
  cancellation* signal_;
};

}  // namespace aopt
