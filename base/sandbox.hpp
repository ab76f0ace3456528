// The confinement of an untrusted child process (candidate code, or a compiler fed candidate
// sources): prepared in the parent, applied by the child just before exec.
//
//   sandbox_spec spec;
//   spec.writable = {scratch};                 // everything else is read-only or invisible
//   auto box = sandbox::prepare(spec);         // parent: allocates, opens paths
//   ... clone ...
//   child: box->enter_network_namespace(); box->confine(fd); execve(...)  // async-signal-safe
//
// What confine() applies, each layer holding even when another is missing:
//   * identity (sandbox_spec::identity): a root parent's child becomes an unprivileged uid and
//     gid with no supplementary groups, which own nothing of aopt's;
//   * capabilities: a child of a root parent drops every capability (effective, permitted,
//     inheritable, ambient, bounding) and locks SECBIT_NOROOT, so uid 0 grants nothing after
//     exec; only the owner bits of root's files remain, which Landlock then narrows;
//   * Landlock (kernel >= 5.13; ABI-dependent parts noted): the file system is read-only for
//     the system directories (/usr, /lib*, /bin, /sbin, ld.so.cache, /dev/null, /dev/urandom)
//     and `readable`, writable only beneath `writable`, invisible elsewhere (the compile cache,
//     the database, /etc, /proc, /tmp); TCP bind/connect are denied (ABI 4); signals and
//     abstract unix sockets cannot reach processes outside the sandbox (ABI 6). Landlock also
//     forbids ptrace and /proc/<pid>/mem|environ access to any process outside the sandbox;
//   * seccomp, an allow-list (issue 30): the calls the candidate driver, the probe, the
//     reference, nm and the compiler's passes make (memory, files Landlock lets them open, time,
//     threads, signals to themselves; with allow_processes also processes, file renames and
//     fchmod of a descriptor, which the linker sets its output's mode by);
//     every other call fails with EPERM (chmod/chown and families, utimensat, xattrs, mknod,
//     io_uring, sockets, mount, namespaces, bpf, perf, keyrings, ...). ptrace,
//     process_vm_readv/writev, pidfd_getfd, kcmp and process_madvise kill the process with
//     SIGSYS (no honest use; the signal names the attempt); without allow_processes, clone
//     without CLONE_THREAD fails (clone3 fails with ENOSYS so that the C library falls back to
//     clone, whose flags the filter can read).
// When aopt is not root (issue 30 item 2), subprocess starts the child in a user namespace of its
// own (CLONE_NEWUSER, no uid or gid mapped: inside, it is the overflow id 65534): it holds no
// capability in aopt's namespaces, and gets its network (and, for a compiler, PID) namespace
// without privilege. On the file system the kernel still knows it by aopt's uid (an unprivileged
// process can map no other id without the setuid newuidmap and /etc/subuid ranges), so there
// Landlock and the seccomp allow-list (no chmod/chown, no utimes, no xattrs) keep it off aopt's
// files; notes() says so.
// enter_network_namespace() moves the child into a new network namespace. With allow_processes,
// subprocess starts the program as the init of a new PID namespace: when it ends, the kernel
// kills every process it left behind (a compiler driver's cc1plus, as, ld).
//
// What the running kernel or privileges do not allow is listed in notes(), not an error.
// Thread-safety: a prepared sandbox is immutable; its child-side methods run in the child before
// exec.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/access_monitor.hpp"
#include "base/status.hpp"

namespace aopt {

// Who a sandboxed child runs as (issue 30): an identity that owns nothing of aopt's, so that
// even a call the filters let through cannot change aopt's files or signal its processes.
struct sandbox_identity {
  uid_t uid = 65534;  // "nobody" on Debian
  gid_t gid = 65534;  // "nogroup"
};

// The identity untrusted children take: 65534:65534 when this process is root (it can switch to
// it; nothing is created on the system), none otherwise: they start in a user namespace of their
// own (sandbox::user_namespace()) but keep aopt's uid on the file system, and Landlock and the
// seccomp allow-list (no chmod/chown, no utimes, no xattrs) are what keeps them off its files.
std::optional<sandbox_identity> untrusted_identity();

// Gives `dir` and everything beneath it to `who` (lchown, no link followed), so that a child
// running as `who` can build and run there. The parents of `dir` must let `who` search them.
status hand_over(const std::filesystem::path& dir, const sandbox_identity& who);

struct sandbox_spec {
  // A compiler driver forks its passes; candidate code may not create processes.
  bool allow_processes = false;
  std::vector<std::string> readable;  // read + execute beneath these, besides the system dirs
  std::vector<std::string> writable;  // read + write + create + remove beneath these
  // Report opens outside the sandbox (access_monitor.hpp). For a single program: a compiler
  // opens hundreds of headers and its refusals show in its own diagnostics.
  bool monitor_access = false;
  // Switch to this identity (setgroups, setresgid, setresuid) before dropping capabilities. Only
  // a root parent can; without root it is an error at confine().
  std::optional<sandbox_identity> identity;
};

// Why a child-side step failed: the step and the errno.
struct sandbox_failure {
  const char* step = nullptr;
  int error = 0;
};

// The child's copies of the sandbox's descriptors (it moves them to keep 3.. for passed ones).
struct sandbox_child_fds {
  int ruleset = -1;
  int monitor = -1;
};

class sandbox {
 public:
  // Fails (internal) only when the seccomp program cannot be built or Landlock, present,
  // refuses a rule; a missing path in `readable`/`writable` is skipped.
  static result<sandbox> prepare(const sandbox_spec& spec);

  sandbox(sandbox&& other) noexcept;
  sandbox& operator=(sandbox&& other) noexcept;
  sandbox(const sandbox&) = delete;
  sandbox& operator=(const sandbox&) = delete;
  ~sandbox();

  bool allows_processes() const { return allow_processes_; }
  // Whether the child is to start in a user namespace of its own (aopt is not root): the caller
  // of clone adds CLONE_NEWUSER, and reports when the kernel refused it.
  bool user_namespace() const { return user_namespace_; }
  // Whether Landlock confines the file system of the child.
  bool filesystem_confined() const { return ruleset_fd_ >= 0; }
  const std::vector<std::string>& notes() const { return notes_; }
  // What the child keeps open until confine(): the Landlock ruleset and the socket it hands
  // the access monitor's listener over (-1 when absent).
  sandbox_child_fds child_fds() const { return {ruleset_fd_, monitor_child_fd_}; }

  // Parent side, once the child has exec'd or failed: the monitor of the
  // child's file accesses, or none (not requested, or the child ended before handing it over).
  std::optional<access_monitor> take_monitor(pid_t child);

  // Child side, async-signal-safe. A new network namespace (best effort: returns false with
  // errno set when the kernel refuses).
  bool enter_network_namespace() const noexcept;
  // Child side, async-signal-safe: drops privileges, then Landlock, then hands the access
  // monitor over, then seccomp; `fds` are the child's copies of child_fds(). Returns a failure
  // with a null step on success.
  sandbox_failure confine(sandbox_child_fds fds) const noexcept;

 private:
  sandbox() = default;

  void close_fds() noexcept;

  bool allow_processes_ = false;
  bool user_namespace_ = false;
  std::optional<sandbox_identity> identity_;
  int ruleset_fd_ = -1;
  int monitor_parent_fd_ = -1;  // a socket pair: the child sends the listener through it
  int monitor_child_fd_ = -1;
  const void* seccomp_program_ = nullptr;  // sock_fprog, owned by a function-local static
  const void* monitor_program_ = nullptr;
  std::vector<std::string> readable_dirs_;  // system directories and spec.readable
  std::vector<std::string> writable_dirs_;
  std::vector<std::string> notes_;
};

}  // namespace aopt
