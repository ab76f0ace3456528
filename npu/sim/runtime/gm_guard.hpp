// Simulated GM out of the kernel's reach except inside the traced API (issue 30, price by work).
//
// The timing model prices what the trace records, and the trace records the API calls. A kernel
// that reads GM through a raw pointer (a GM_ADDR cast, which the screen cannot tell from the cast
// that sets a GlobalTensor) computes on bytes no trace shows: a row sum done in plain C++ and
// stored by one scalar SetValue, a softmax's maximum fed to Adds as a scalar. Its outputs can be
// right, its trace plausible and its latency far below the work it did. So while the cores run,
// the GM the kernel was given (inputs, outputs, workspace) is mapped without access; the runtime
// opens it only inside the API calls that read or write GM (DataCopy, GlobalTensor
// GetValue/SetValue, the ND -> NZ load, Fixpipe, InitGlobalMemory), which record and price what
// they touch. Any other access faults, and the fault is reported as untraced work naming GM
// (crash_report.hpp).
// The tiling data stays readable: GET_TILING_DATA copies it, and the host program that wrote it
// never sees the inputs' data.
//
// Where the CPU has memory protection keys the GM is tagged with the process's key and a window
// switches the running thread's access to it (a register write); elsewhere a window changes the
// pages' protection (two mprotect calls per guarded buffer).
//
// Thread-safety: one guard per launch; its cores run one at a time (block_runner.hpp), so open()
// and close() are never called concurrently for one guard. Guards of launches of other input
// sets protect other mappings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aopt::sim {

class gm_guard {
 public:
  struct span {
    uint8_t* begin = nullptr;  // page-aligned: the start of a mapping of its own
    size_t bytes = 0;
  };

  // How access is taken away: a protection key where the CPU has one (the default), else the
  // pages' protection. Tests choose `pages` to cover the fallback on a CPU with keys.
  enum class mechanism { best_available, pages };

  // Removes every access to `spans` (empty ones are skipped) until the guard ends.
  explicit gm_guard(std::vector<span> spans, mechanism how = mechanism::best_available);
  ~gm_guard();  // read and write again
  gm_guard(const gm_guard&) = delete;
  gm_guard& operator=(const gm_guard&) = delete;

  // Around a core's kernel, on the thread that runs it: a key's access is the thread's, so the
  // core starts without it (nothing to do where pages are protected instead).
  void kernel_starts() const noexcept;
  void kernel_ended() const noexcept;

  // Nested: the first open() makes the spans readable and writable (or throws
  // std::system_error), the matching last close() takes that away again.
  void open();
  void close() noexcept;

  // Whether this guard uses a protection key (else page protection).
  bool keyed() const noexcept { return key_ >= 0; }

 private:
  // Whether every span took `access`, or the protection key `key`.
  bool protect(int access) const noexcept;
  bool tag(int key) const noexcept;
  // Read and write for every thread again.
  void release() const noexcept;

  std::vector<span> spans_;
  int key_;  // the protection key, or -1: page protection
  uint32_t depth_ = 0;
};

// Open for the scope of one API call; a null guard (a launch without one) does nothing.
class gm_window {
 public:
  explicit gm_window(gm_guard* guard) : guard_(guard) {
    if (guard_ != nullptr) guard_->open();
  }
  ~gm_window() {
    if (guard_ != nullptr) guard_->close();
  }
  gm_window(const gm_window&) = delete;
  gm_window& operator=(const gm_window&) = delete;

 private:
  gm_guard* guard_;
};

// A core's kernel running on the calling thread (gm_guard::kernel_starts); a null guard does
// nothing.
class gm_kernel_scope {
 public:
  explicit gm_kernel_scope(const gm_guard* guard) : guard_(guard) {
    if (guard_ != nullptr) guard_->kernel_starts();
  }
  ~gm_kernel_scope() {
    if (guard_ != nullptr) guard_->kernel_ended();
  }
  gm_kernel_scope(const gm_kernel_scope&) = delete;
  gm_kernel_scope& operator=(const gm_kernel_scope&) = delete;

 private:
  const gm_guard* guard_;
};

}  // namespace aopt::sim
