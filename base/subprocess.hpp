// Runs a child process under resource limits, with an optional sandbox for untrusted code.
//
//   aopt::subprocess_options o;
//   o.argv = {"/usr/bin/g++", "-c", "x.cpp"};
//   o.limits.wall_seconds = 30;
//   auto r = aopt::run_subprocess(o);   // blocks until the child ends or is killed
//   if (r.ok() && r->exited && r->exit_code == 0) ...
//
// The child runs in its own process group; a wall-clock timeout, the destructor of a running
// `subprocess` and the end of the child all SIGKILL that whole group, and the child is always
// reaped, so nothing a child does outlives its subprocess object or leaves a zombie. The child
// also dies with its supervisor (PR_SET_PDEATHSIG): a `kill -9` of aopt leaves no child behind.
// The death signal follows the *thread* that started the child, so start() and wait() belong
// on one thread that outlives the child (run_subprocess does both).
//
// The sandbox (options.sandbox, base/sandbox.hpp) is for candidate code and for the compiler
// that reads it: no capabilities, a file system confined to the system directories, the
// program's own directory (read) and the working directory plus `sandbox_writable` (write), no
// network (a fresh network namespace when the kernel allows it, reported in
// `network_isolated`, and seccomp/Landlock denials of sockets and TCP), no ptrace or access to
// other processes' memory, and no new processes unless `sandbox_allows_processes` (then the
// program is the init of a new PID namespace, so its helpers die with it). What a single
// sandboxed program tried to open outside its sandbox is reported in `denied_access`.
//
// Thread-safety: run_subprocess may be called from many threads at once. A `subprocess` object
// is used by one thread at a time. Linux only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/access_monitor.hpp"
#include "base/sandbox.hpp"
#include "base/status.hpp"
#include "base/unique_fd.hpp"

namespace aopt {

// A limit of 0 leaves the inherited limit in place.
struct subprocess_limits {
  double wall_seconds = 0;           // SIGKILL to the process group after this long; timed_out
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU (soft; SIGXCPU, then SIGKILL one second later)
  uint64_t address_space_bytes = 0;  // RLIMIT_AS
  uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE (a write beyond it fails / raises SIGXFSZ)
  // RLIMIT_NPROC counts every process of the user and is not enforced for root, so it is a
  // coarse backstop; the sandbox's seccomp filter is what stops a fork bomb.
  uint64_t max_processes = 0;
};

// The most descriptors one child can be passed (the child moves them on its own stack).
inline constexpr size_t max_pass_fds = 64;

struct subprocess_options {
  std::vector<std::string> argv;  // argv[0] is the program path (no PATH lookup)
  std::string working_dir;        // empty: the parent's
  // Untrusted children get `inherit_environment = false` and only what they need: the parent's
  // environment may hold secrets (API keys, bearer tokens).
  bool inherit_environment = true;
  // Added to (or, without inheritance, the whole of) the environment, as "NAME=value".
  std::vector<std::string> environment;
  // Output beyond this many bytes per stream is dropped (the child keeps running) and the
  // stream is marked truncated.
  size_t output_limit_bytes = 1 << 20;
  // The child's standard output is a memory file instead of a pipe: sealed against every change
  // once the child is gone, cut to output_limit_bytes (stdout_truncated when it held more) and
  // handed back as subprocess_result::stdout_file, never copied into stdout_text. A delivery of
  // hundreds of MiB so reaches its reader without passing through the parent. What the child can
  // write into it is bounded by limits.file_size_bytes (the kernel applies it to this file too),
  // which must be set above output_limit_bytes (invalid_argument otherwise). It is not redacted: it
  // is for a binary delivery that a trusted reader decodes.
  bool stdout_to_memory_file = false;
  subprocess_limits limits;
  bool sandbox = false;
  bool sandbox_allows_processes = false;      // a compiler driver; candidate code may not fork
  std::vector<std::string> sandbox_readable;  // read-only, besides the system and program dirs
  std::vector<std::string> sandbox_writable;  // besides working_dir
  // The identity the sandboxed child runs as (untrusted_identity(); base/sandbox.hpp): its
  // working dir and writable dirs must be handed over to it first (hand_over).
  std::optional<sandbox_identity> sandbox_user;
  // Descriptors the child receives as 3, 4, ... in this order (pipes or shared memory the
  // parent owns), at most max_pass_fds; every other descriptor is closed in the child.
  std::vector<int> pass_fds;
  // Texts that must never come back from the child (secrets): every occurrence in its output,
  // and a prefix of one cut off at a truncation, becomes "[redacted]".
  std::vector<std::string> redact;
  // A descriptor of the parent's (cancellation::fd(), base/cancellation.hpp), or -1. When it
  // becomes readable the child's group is killed as at the timeout, and the result says
  // `cancelled`: work another thread has made pointless stops now instead of at its end.
  int cancel_fd = -1;
};

struct subprocess_result {
  bool exited = false;  // ended by exit(); exit_code is valid
  int exit_code = -1;
  int term_signal = 0;     // the signal that ended it, when !exited
  bool timed_out = false;  // killed by the wall-clock timeout (term_signal is SIGKILL)
  bool cancelled = false;  // killed because options.cancel_fd became readable (SIGKILL)
  double wall_seconds = 0;
  double cpu_seconds = 0;  // user + system time of the child
  std::string stdout_text;
  std::string stderr_text;
  // stdout_to_memory_file only: the sealed file, read from offset 0, and its size. Invalid when
  // it could not be sealed (`notes` says why). stdout_truncated: the child wrote, or tried to
  // write, beyond output_limit_bytes.
  unique_fd stdout_file;
  uint64_t stdout_file_bytes = 0;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool network_isolated = false;     // sandbox only: the child ran in its own network namespace
  bool filesystem_confined = false;  // sandbox only: Landlock confined the child's file system
  // Sandbox, aopt not root: the child ran in a user namespace of its own (base/sandbox.hpp).
  bool own_user_namespace = false;
  // Sandbox without sandbox_allows_processes only: the files it tried to open outside its
  // sandbox (refused by Landlock), first ones first.
  std::vector<access_denial> denied_access;
  std::vector<std::string> notes;  // what the sandbox could not do, for the log

  bool succeeded() const { return exited && exit_code == 0 && !timed_out; }
  // "exit code 3", "signal SIGSEGV", "timed out after 2.0 s", "cancelled after 0.4 s"
  std::string describe() const;
};

// "SIGSEGV" for 11; "signal 77" for a number without a name.
std::string signal_name(int signal_number);

// A running child. Move-only; the destructor kills the child's process group and reaps it.
class subprocess {
 public:
  // Starts the child. Fails (internal / not_found / invalid_argument) when it cannot be
  // started, including when exec fails (a missing program is not_found).
  static result<subprocess> start(const subprocess_options& options);

  subprocess(subprocess&& other) noexcept;
  subprocess& operator=(subprocess&& other) noexcept;
  subprocess(const subprocess&) = delete;
  subprocess& operator=(const subprocess&) = delete;
  ~subprocess();

  pid_t pid() const { return pid_; }

  // Collects output until the child ends or the wall-clock limit passes, then kills the
  // group, reaps the child and reports. REQUIRES: called at most once.
  subprocess_result wait();

 private:
  subprocess() = default;
  void kill_and_reap() noexcept;
  void close_fds() noexcept;
  void finish_monitor(subprocess_result& result);
  void take_memory_output(subprocess_result& result);

  pid_t pid_ = -1;  // -1 once reaped
  int pidfd_ = -1;
  int stdout_fd_ = -1;
  int stdout_file_ = -1;  // stdout_to_memory_file: the parent's descriptor of the child's stdout
  int stderr_fd_ = -1;
  double start_time_ = 0;
  size_t output_limit_bytes_ = 0;
  double wall_seconds_ = 0;
  int cancel_fd_ = -1;
  bool network_isolated_ = false;
  bool filesystem_confined_ = false;
  bool own_user_namespace_ = false;
  std::optional<access_monitor> monitor_;
  std::vector<std::string> redact_;
  std::vector<std::string> notes_;
};

// start() + wait().
result<subprocess_result> run_subprocess(const subprocess_options& options);

}  // namespace aopt
