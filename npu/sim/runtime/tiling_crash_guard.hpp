// While the host tiling function runs, a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) is
// reported on stderr by name before the candidate dies of it (issue 34): the parent
// (sim_device) finds the line starting with tiling_crash_marker and says "the tiling function
// TilingForKnn was killed by SIGSEGV" instead of a bare signal. The signal still kills the
// process (the handler restores the default action and raises it again).
//
// Thread-safety: one guard at a time per process (signal dispositions are process-wide); the
// driver calls the tiling function on one thread.
#pragma once

#include <signal.h>

#include <csignal>
#include <string>

namespace aopt::sim {

inline constexpr const char* tiling_crash_marker = "aopt-tiling-crash: ";

class tiling_crash_guard {
 public:
  explicit tiling_crash_guard(const std::string& function_name);
  ~tiling_crash_guard();
  tiling_crash_guard(const tiling_crash_guard&) = delete;
  tiling_crash_guard& operator=(const tiling_crash_guard&) = delete;

 private:
  static constexpr int guarded_count = 5;
  struct sigaction previous_[guarded_count] {};
};

}  // namespace aopt::sim
