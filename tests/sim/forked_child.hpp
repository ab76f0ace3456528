// Runs code that may kill its process on purpose (a kernel touching guarded GM, a crashing tiling
// function) in a forked child, as a candidate runs, so that the test process survives it: how
// the child ended and what it wrote on stderr.
#pragma once

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "npu/sim/runtime/crash_report.hpp"

namespace aopt::sim::testing {

struct child_end {
  bool killed_by_segv = false;
  bool exited_zero = false;  // `body` returned
  std::string stderr_text;
};

inline child_end run_in_forked_child(const std::function<void()>& body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  child_end end;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    end.stderr_text.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  end.killed_by_segv = WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
  end.exited_zero = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return end;
}

// Whether the child died where its kernel touched GM outside the traced API (crash_report.hpp).
inline bool died_of_untraced_gm(const child_end& end) {
  return end.killed_by_segv &&
         end.stderr_text.find(std::string(gm_guard_marker) +
                              "the kernel touched simulated GM outside the traced tensor API") !=
             std::string::npos;
}

}  // namespace aopt::sim::testing
