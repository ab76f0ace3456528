// SIGINT and SIGTERM for `aopt serve`: blocked in every thread (construct this before any thread
// starts; threads inherit the mask) and taken synchronously by wait(), so the daemon stops in an
// orderly way on the main thread instead of in a signal handler. Once the orderly stop began, a
// second signal ends the process at once (exit status 130); everything acknowledged was already
// persisted, and the next start resumes.
//
// Thread-safety: one instance per process, used from the main thread.
#pragma once

namespace aopt::server {

class stop_signals {
 public:
  stop_signals();

  // Blocks until SIGINT or SIGTERM arrives; returns it.
  int wait();
  // From now on, the next SIGINT or SIGTERM ends the process immediately.
  void arm_hard_stop();
};

}  // namespace aopt::server
