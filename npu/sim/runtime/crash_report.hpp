// The candidate's fatal signals, reported on stderr before the process dies of them: the parent
// (sim_device) finds the marked line and names the cause instead of a bare signal.
//
// One handler for the process, installed before any input set starts and never replaced while
// sets run: input sets run on threads of their own, so a disposition one set changed around its
// tiling function would catch another set's kernel faulting (and be undone under it). What a
// thread was doing is thread-local instead (tiling_crash_guard.hpp); a fault is reported on the
// thread that took it.
//
//  - While the thread runs the host tiling function: "the tiling function F was killed by SIG"
//    after tiling_crash_marker, for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT.
//  - Otherwise, a SIGSEGV on a page that is mapped but refuses the access (SEGV_ACCERR, or
//    SEGV_PKUERR under a protection key) is the GM guard's (gm_guard.hpp): the line after
//    gm_guard_marker says the kernel touched GM outside the traced API. The UB and the stacks
//    are writable, and a null or wild pointer is SEGV_MAPERR, which is reported by its signal.
//
// The handler writes its line, puts the default action back and raises the signal again, so the
// process still dies of it. Every thread that faults writes its own line before the default
// action is back: a second thread faulting meanwhile cannot kill the process before one line is
// out. A line is one write of less than PIPE_BUF bytes, so it reaches the parent's pipe whole.
#pragma once

#include <string>

namespace aopt::sim {

inline constexpr const char* tiling_crash_marker = "aopt-tiling-crash: ";
inline constexpr const char* gm_guard_marker = "aopt-gm-guard: ";

// Installs the handler (idempotent; installing it again changes nothing).
void install_crash_report();

// The host tiling function the calling thread runs from now on (nullptr: none). The name must
// outlive the call that clears it; tiling_crash_guard does both.
void set_running_tiling_function(const std::string* name) noexcept;

}  // namespace aopt::sim
