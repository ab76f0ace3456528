#include "base/sandbox.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

namespace aopt {

namespace {

// The system headers of this build (Linux 6.1) predate Landlock ABI 3-6; these values are the
// kernel's stable ABI (include/uapi/linux/landlock.h).
constexpr uint64_t ll_fs_truncate = 1ULL << 14;   // ABI 3
constexpr uint64_t ll_fs_ioctl_dev = 1ULL << 15;  // ABI 5
constexpr uint64_t ll_net_bind_tcp = 1ULL << 0;   // ABI 4
constexpr uint64_t ll_net_connect_tcp = 1ULL << 1;
constexpr uint64_t ll_scope_abstract_unix_socket = 1ULL << 0;  // ABI 6
constexpr uint64_t ll_scope_signal = 1ULL << 1;

// struct landlock_ruleset_attr as of ABI 6; the size passed tells the kernel which fields exist.
struct ruleset_attr_v6 {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

constexpr uint64_t ll_read_exec =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// Writable trees get everything but device nodes, FIFOs and sockets.
constexpr uint64_t ll_read_write =
    ll_read_exec | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
    LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | ll_fs_truncate;
// The rights Landlock accepts on a rule for a file that is not a directory.
constexpr uint64_t ll_file_rights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                    LANDLOCK_ACCESS_FS_READ_FILE | ll_fs_truncate | ll_fs_ioctl_dev;

// Every file-system right the kernel of a given ABI knows: all of them are "handled", so
// whatever no rule grants is denied.
uint64_t ll_handled_fs(long abi) {
  uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= ll_fs_truncate;
  if (abi >= 5) rights |= ll_fs_ioctl_dev;
  return rights;
}

struct system_path {
  const char* path;
  uint64_t rights;
};

// What a dynamically linked program and the compiler need to start and run.
constexpr system_path system_paths[] = {
    {"/usr", ll_read_exec},
    {"/lib", ll_read_exec},
    {"/lib64", ll_read_exec},
    {"/lib32", ll_read_exec},
    {"/libx32", ll_read_exec},
    {"/bin", ll_read_exec},
    {"/sbin", ll_read_exec},
    {"/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE},
    {"/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE},
    {"/dev/urandom", LANDLOCK_ACCESS_FS_READ_FILE},
    {"/dev/random", LANDLOCK_ACCESS_FS_READ_FILE},
    // Which huge-page mode the kernel runs in and its page size: glibc's malloc reads both before
    // it asks for huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), and asks for none when it
    // cannot.
    {"/sys/kernel/mm/transparent_hugepage/enabled", LANDLOCK_ACCESS_FS_READ_FILE},
    {"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", LANDLOCK_ACCESS_FS_READ_FILE},
};

class fd_closer {
 public:
  explicit fd_closer(int fd) : fd_(fd) {}
  fd_closer(const fd_closer&) = delete;
  fd_closer& operator=(const fd_closer&) = delete;
  ~fd_closer() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// The compiled seccomp programs, built once: building allocates, and the child of a
// multi-threaded parent may only make async-signal-safe calls before exec.
struct seccomp_program {
  std::vector<sock_filter> filter;
  sock_fprog fprog{};
  std::string error;  // non-empty when the program could not be built
};

// Compiles `ctx` into `program` (releasing ctx); sets program.error on failure.
void export_program(scmp_filter_ctx ctx, seccomp_program& program) {
  int mem_fd = ::memfd_create("aopt-seccomp", MFD_CLOEXEC);
  if (mem_fd < 0) {
    program.error = std::string("memfd_create: ") + std::strerror(errno);
    seccomp_release(ctx);
    return;
  }
  fd_closer mem(mem_fd);
  int rc = seccomp_export_bpf(ctx, mem.get());
  seccomp_release(ctx);
  if (rc != 0) {
    program.error = std::string("seccomp_export_bpf: ") + std::strerror(-rc);
    return;
  }
  off_t size = ::lseek(mem.get(), 0, SEEK_END);
  if (size <= 0 || size % sizeof(sock_filter) != 0 || ::lseek(mem.get(), 0, SEEK_SET) != 0) {
    program.error = "seccomp_export_bpf wrote an unexpected program size";
    return;
  }
  program.filter.resize(static_cast<size_t>(size) / sizeof(sock_filter));
  auto* out = reinterpret_cast<char*>(program.filter.data());
  size_t done = 0;
  while (done < static_cast<size_t>(size)) {
    ssize_t n = ::read(mem.get(), out + done, static_cast<size_t>(size) - done);
    if (n <= 0) {
      program.error = "reading the seccomp program failed";
      program.filter.clear();
      return;
    }
    done += static_cast<size_t>(n);
  }
  program.fprog.len = static_cast<unsigned short>(program.filter.size());
  program.fprog.filter = program.filter.data();
}

// A program whose default is `default_action`, with what `add_rules(ctx)` adds (returning
// non-zero on failure).
template <typename AddRules>
seccomp_program build_program(uint32_t default_action, AddRules add_rules) {
  seccomp_program program;
  scmp_filter_ctx ctx = seccomp_init(default_action);
  if (ctx == nullptr) {
    program.error = "seccomp_init failed";
    return program;
  }
  if (add_rules(ctx) != 0) {
    program.error = "seccomp_rule_add failed";
    seccomp_release(ctx);
    return program;
  }
  export_program(ctx, program);
  return program;
}

// The system calls every sandboxed program may make (issue 30: the sandbox is an allow-list):
// what the C and C++ runtimes of the candidate driver, the tiling probe, the reference, nm and
// the compiler's passes use to start, allocate, read and write the files Landlock lets them
// open, keep time and run threads. Everything else fails with EPERM: among it chmod/chown and
// their families, utime(n)sat, the xattr calls, mknod, io_uring (which would create the sockets
// `socket` may not), socket/connect, mount and namespaces, bpf, perf, keyrings.
constexpr const char* allowed_everywhere[] = {
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "pwrite64",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "lseek",
    "close",
    "close_range",
    "open",
    "openat",
    "fstat",
    "stat",
    "lstat",
    "newfstatat",
    "statx",
    "fstatfs",
    "statfs",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getcwd",
    "getdents",
    "getdents64",
    "fcntl",
    "dup",
    "dup2",
    "dup3",
    "ioctl",
    "mmap",
    "munmap",
    "mprotect",
    // Memory protection keys: the simulator's runtime keeps its GM out of the kernel's reach with
    // them (npu/sim/runtime/gm_guard.hpp).
    "pkey_alloc",
    "pkey_mprotect",
    "mremap",
    "madvise",
    "brk",
    "msync",
    "mincore",
    "futex",
    "futex_waitv",
    "set_robust_list",
    "get_robust_list",
    "set_tid_address",
    "rseq",
    "membarrier",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigpending",
    "rt_sigtimedwait",
    "rt_sigsuspend",
    "sigaltstack",
    "tgkill",
    "tkill",
    "exit",
    "exit_group",
    "getpid",
    "getppid",
    "gettid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "getpgrp",
    "getpgid",
    "getsid",
    "arch_prctl",
    "prctl",
    "prlimit64",
    "getrlimit",
    "getrusage",
    "times",
    "sysinfo",
    "uname",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    "nanosleep",
    "clock_nanosleep",
    "sched_yield",
    "sched_getaffinity",
    "sched_getparam",
    "sched_getscheduler",
    "getrandom",
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "eventfd2",
    "execve",
    "execveat",
    "getcpu",
    "pipe",
    "pipe2",
};
// A compiler driver, its passes and the linker besides: processes, temporary files, the output
// (mold sets its output's mode through the descriptor it wrote it by: fchmod, never a path).
constexpr const char* allowed_tools[] = {
    "fchmod",  "vfork",  "fork",      "wait4",     "waitid", "kill",      "setrlimit", "umask",
    "chdir",   "fchdir", "unlink",    "unlinkat",  "rename", "renameat",  "renameat2", "mkdir",
    "mkdirat", "rmdir",  "ftruncate", "fallocate", "fsync",  "fdatasync", "creat",
};

// Ways out of the sandbox that Landlock does not confine (issue 30): file modes, owners, times
// and attributes anywhere, device nodes, io_uring (which creates the sockets `socket` may not).
constexpr const char* escape_calls[] = {
    "chmod",          "fchmod",         "fchmodat",          "fchmodat2", "chown",
    "fchown",         "lchown",         "fchownat",          "utime",     "utimes",
    "utimensat",      "futimesat",      "setxattr",          "lsetxattr", "fsetxattr",
    "removexattr",    "lremovexattr",   "fremovexattr",      "mknod",     "mknodat",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
};

int add_sandbox_rules(scmp_filter_ctx ctx, bool allow_processes) {
  int rc = 0;
  auto allow = [&](const char* name) {
    const int nr = seccomp_syscall_resolve_name(name);
    // A call this architecture lacks (__NR_SCMP_ERROR) is not an error.
    if (nr >= 0) rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
  };
  for (const char* name : allowed_everywhere) allow(name);
  if (allow_processes) {
    for (const char* name : allowed_tools) allow(name);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 0);
  } else {
    // Threads only: a clone with CLONE_THREAD. Any other clone (a new process) fails.
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  }
  // clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc fall back to
  // clone, which the rules above check.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Reaching other processes' memory or descriptors (the parent's above all) has no honest
  // use in a kernel or a compiler: the process dies with SIGSYS, which names the attempt.
  for (int nr : {SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                 SCMP_SYS(pidfd_getfd), SCMP_SYS(kcmp), SCMP_SYS(process_madvise)}) {
    if (nr >= 0) rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
  }
  // A single program (a candidate, a probe, a reference) has no honest use either for the ways
  // out that Landlock does not confine: it dies too. A linker may set its output's mode.
  if (!allow_processes) {
    for (const char* name : escape_calls) {
      const int nr = seccomp_syscall_resolve_name(name);
      if (nr >= 0) rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
    }
  }
  return rc;
}

// Every call that opens or truncates a file by name goes to the access monitor first.
int add_monitor_rules(scmp_filter_ctx ctx) {
  int rc = 0;
  for (int nr :
       {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat), SCMP_SYS(truncate)}) {
    if (nr >= 0) rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
  }
  return rc;
}

const seccomp_program& monitor_program() {
  static const seccomp_program program = build_program(SCMP_ACT_ALLOW, add_monitor_rules);
  return program;
}

const seccomp_program& compiled_program(bool allow_processes) {
  static const seccomp_program single = build_program(
      SCMP_ACT_ERRNO(EPERM), [](scmp_filter_ctx ctx) { return add_sandbox_rules(ctx, false); });
  static const seccomp_program tool = build_program(
      SCMP_ACT_ERRNO(EPERM), [](scmp_filter_ctx ctx) { return add_sandbox_rules(ctx, true); });
  return allow_processes ? tool : single;
}

// One byte carrying one descriptor (SCM_RIGHTS) over a unix socket. Not copyable: the header
// points into the object.
struct fd_message {
  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};

  fd_message() {
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
  }
  fd_message(const fd_message&) = delete;
  fd_message& operator=(const fd_message&) = delete;
};

long landlock_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : abi;
}

// Grants `rights` beneath `path` (or on the file). Returns 0, or the errno; ENOENT is the
// caller's to ignore.
int add_path_rule(int ruleset, const std::string& path, uint64_t rights, uint64_t handled) {
  fd_closer fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (fd.get() < 0) return errno;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode)) rights &= ll_file_rights;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights & handled;
  rule.parent_fd = fd.get();
  if (rule.allowed_access == 0) return 0;
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
    return errno;
  }
  return 0;
}

}  // namespace

std::optional<sandbox_identity> untrusted_identity() {
  if (::geteuid() != 0) return std::nullopt;
  return sandbox_identity{};
}

status hand_over(const std::filesystem::path& dir, const sandbox_identity& who) {
  auto give = [&](const std::filesystem::path& p) -> status {
    if (::lchown(p.c_str(), who.uid, who.gid) != 0) {
      return internal_error("sandbox: lchown " + p.string() + ": " + std::strerror(errno));
    }
    return {};
  };
  if (status st = give(dir); !st.ok()) return st;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (status st = give(it->path()); !st.ok()) return st;
  }
  if (ec) return internal_error("sandbox: " + dir.string() + ": " + ec.message());
  return {};
}

result<sandbox> sandbox::prepare(const sandbox_spec& spec) {
  sandbox box;
  box.allow_processes_ = spec.allow_processes;
  box.identity_ = spec.identity;
  // Root switches to an identity of its own; anyone else gets a user namespace (sandbox.hpp).
  box.user_namespace_ = ::geteuid() != 0;
  if (box.user_namespace_) {
    box.notes_.push_back(
        "not root: the child runs in a user namespace of its own but keeps aopt's uid on the "
        "file system; Landlock and the seccomp allow-list keep it off aopt's files");
  }
  const seccomp_program& program = compiled_program(spec.allow_processes);
  if (!program.error.empty()) return internal_error("sandbox: " + program.error);
  box.seccomp_program_ = &program.fprog;
  for (const auto& p : system_paths) box.readable_dirs_.emplace_back(p.path);
  box.readable_dirs_.insert(box.readable_dirs_.end(), spec.readable.begin(), spec.readable.end());
  box.writable_dirs_ = spec.writable;
  if (spec.monitor_access) {
    const seccomp_program& monitor = monitor_program();
    if (!monitor.error.empty()) return internal_error("sandbox: " + monitor.error);
    box.monitor_program_ = &monitor.fprog;
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      return status(errno == EMFILE || errno == ENFILE ? status_code::resource_exhausted
                                                       : status_code::internal,
                    std::string("sandbox: socketpair: ") + std::strerror(errno));
    }
    box.monitor_parent_fd_ = pair[0];
    box.monitor_child_fd_ = pair[1];
  }

  const long abi = landlock_abi();
  if (abi < 1) {
    box.notes_.push_back(
        "no Landlock in this kernel: the file system is not confined (only seccomp and dropped "
        "privileges apply)");
    return box;
  }
  ruleset_attr_v6 attr{};
  attr.handled_access_fs = ll_handled_fs(abi);
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = ll_net_bind_tcp | ll_net_connect_tcp;
    attr_size = 2 * sizeof(uint64_t);
  } else {
    box.notes_.push_back("Landlock ABI " + std::to_string(abi) + " cannot deny TCP");
  }
  if (abi >= 6) {
    attr.scoped = ll_scope_abstract_unix_socket | ll_scope_signal;
    attr_size = sizeof(attr);
  } else {
    box.notes_.push_back("Landlock ABI " + std::to_string(abi) +
                         " cannot confine signals and abstract sockets");
  }
  fd_closer ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0)));
  if (ruleset.get() < 0) {
    return internal_error(std::string("sandbox: landlock_create_ruleset: ") + std::strerror(errno));
  }
  ::fcntl(ruleset.get(), F_SETFD, FD_CLOEXEC);
  auto add = [&](const std::string& path, uint64_t rights) -> status {
    int err = add_path_rule(ruleset.get(), path, rights, attr.handled_access_fs);
    if (err == 0 || err == ENOENT || err == ENOTDIR) return {};
    return internal_error("sandbox: Landlock rule for " + path + ": " + std::strerror(err));
  };
  for (const auto& p : system_paths) {
    if (status st = add(p.path, p.rights); !st.ok()) return st;
  }
  for (const auto& p : spec.readable) {
    if (status st = add(p, ll_read_exec); !st.ok()) return st;
  }
  for (const auto& p : spec.writable) {
    if (status st = add(p, ll_read_write); !st.ok()) return st;
  }
  box.ruleset_fd_ = ruleset.release();
  return box;
}

sandbox::sandbox(sandbox&& other) noexcept {
  *this = std::move(other);
}

sandbox& sandbox::operator=(sandbox&& other) noexcept {
  if (this != &other) {
    close_fds();
    allow_processes_ = other.allow_processes_;
    user_namespace_ = other.user_namespace_;
    identity_ = other.identity_;
    ruleset_fd_ = std::exchange(other.ruleset_fd_, -1);
    monitor_parent_fd_ = std::exchange(other.monitor_parent_fd_, -1);
    monitor_child_fd_ = std::exchange(other.monitor_child_fd_, -1);
    seccomp_program_ = other.seccomp_program_;
    monitor_program_ = other.monitor_program_;
    readable_dirs_ = std::move(other.readable_dirs_);
    writable_dirs_ = std::move(other.writable_dirs_);
    notes_ = std::move(other.notes_);
  }
  return *this;
}

sandbox::~sandbox() {
  close_fds();
}

void sandbox::close_fds() noexcept {
  for (int* fd : {&ruleset_fd_, &monitor_parent_fd_, &monitor_child_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

std::optional<access_monitor> sandbox::take_monitor(pid_t child) {
  if (monitor_parent_fd_ < 0) return std::nullopt;
  // Only the child's copy may stay open, so that its end (exec or death) ends the wait below.
  if (monitor_child_fd_ >= 0) ::close(monitor_child_fd_);
  monitor_child_fd_ = -1;
  fd_message message;
  ssize_t n;
  while ((n = ::recvmsg(monitor_parent_fd_, &message.header, MSG_CMSG_CLOEXEC)) < 0 &&
         errno == EINTR) {
  }
  ::close(monitor_parent_fd_);
  monitor_parent_fd_ = -1;
  cmsghdr* header = n > 0 ? CMSG_FIRSTHDR(&message.header) : nullptr;
  if (header == nullptr || header->cmsg_type != SCM_RIGHTS) return std::nullopt;
  int listener = -1;
  std::memcpy(&listener, CMSG_DATA(header), sizeof listener);
  return access_monitor(listener, child, readable_dirs_, writable_dirs_);
}

bool sandbox::enter_network_namespace() const noexcept {
  return ::unshare(CLONE_NEWNET) == 0;
}

sandbox_failure sandbox::confine(sandbox_child_fds fds) const noexcept {
  // Privileges first: dropping capabilities needs CAP_SETPCAP, which is about to go.
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capget, &header, caps) != 0) return {"capget", errno};
  const bool root = ::geteuid() == 0;
  if (root || caps[0].permitted != 0 || caps[1].permitted != 0) {
    if (root) {
      // NOROOT: exec grants uid 0 no capabilities; locked, so the program cannot undo it.
      unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                           SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED;
      if (::prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) {
        return {"prctl(PR_SET_SECUREBITS)", errno};
      }
      // The unprivileged identity while CAP_SETUID/CAP_SETGID remain; NO_SETUID_FIXUP keeps
      // CAP_SETPCAP for the drops below.
      if (identity_) {
        if (::setgroups(0, nullptr) != 0) return {"setgroups", errno};
        if (::setresgid(identity_->gid, identity_->gid, identity_->gid) != 0) {
          return {"setresgid", errno};
        }
        if (::setresuid(identity_->uid, identity_->uid, identity_->uid) != 0) {
          return {"setresuid", errno};
        }
      }
    }
    for (int cap = 0; cap <= 63; ++cap) {
      // EINVAL: no such capability in this kernel. EPERM without CAP_SETPCAP: no_new_privs
      // below already keeps exec from granting what the bounding set would allow.
      if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL &&
          !(errno == EPERM && !root)) {
        return {"prctl(PR_CAPBSET_DROP)", errno};
      }
    }
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
      return {"prctl(PR_CAP_AMBIENT_CLEAR_ALL)", errno};
    }
    __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
    if (::syscall(SYS_capset, &header, none) != 0) return {"capset", errno};
  }
  if (identity_ && !root) return {"switching identity (needs a root parent)", EPERM};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return {"prctl(PR_SET_NO_NEW_PRIVS)", errno};
  if (fds.ruleset >= 0 && ::syscall(SYS_landlock_restrict_self, fds.ruleset, 0) != 0) {
    return {"landlock_restrict_self", errno};
  }
  if (monitor_program_ != nullptr && fds.monitor >= 0) {
    // The listener goes to the parent and is closed here: the program must never hold it
    // (it could answer its own notifications).
    long listener = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                              SECCOMP_FILTER_FLAG_NEW_LISTENER, monitor_program_);
    if (listener < 0) return {"installing the access monitor", errno};
    fd_message message;
    cmsghdr* header = CMSG_FIRSTHDR(&message.header);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    int listener_fd = static_cast<int>(listener);
    std::memcpy(CMSG_DATA(header), &listener_fd, sizeof listener_fd);
    bool sent = ::sendmsg(fds.monitor, &message.header, MSG_NOSIGNAL) == 1;
    int err = errno;
    ::close(listener_fd);
    ::close(fds.monitor);
    if (!sent) return {"handing over the access monitor", err};
  }
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, seccomp_program_) != 0) {
    return {"installing the seccomp filter", errno};
  }
  return {};
}

}  // namespace aopt
