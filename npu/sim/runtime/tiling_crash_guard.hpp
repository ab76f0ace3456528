// While the host tiling function runs on this thread, a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT) is reported on stderr by name before the candidate dies of it (issue 34): the parent
// (sim_device) finds the line starting with tiling_crash_marker and says "the tiling function
// TilingForKnn was killed by SIGSEGV" instead of a bare signal (crash_report.hpp).
//
// Thread-safety: a guard marks only its own thread; input sets on other threads may run their
// tiling functions or kernels meanwhile.
#pragma once

#include <string>

#include "crash_report.hpp"

namespace aopt::sim {

class tiling_crash_guard {
 public:
  explicit tiling_crash_guard(std::string function_name);
  ~tiling_crash_guard();
  tiling_crash_guard(const tiling_crash_guard&) = delete;
  tiling_crash_guard& operator=(const tiling_crash_guard&) = delete;

 private:
  std::string function_name_;
};

}  // namespace aopt::sim
