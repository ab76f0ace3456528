#include "base/subprocess.hpp"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace aopt {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string errno_text(int err) {
  return std::strerror(err);
}

// Closes a descriptor it owns on destruction (parent-side bookkeeping only).
class fd_guard {
 public:
  explicit fd_guard(int fd = -1) : fd_(fd) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// The compiled seccomp program, built once in the parent: building it allocates, and the child
// of a multi-threaded parent may only make async-signal-safe calls before exec.
struct seccomp_program {
  std::vector<sock_filter> filter;
  std::string error;  // non-empty when the program could not be built
};

seccomp_program build_seccomp_program() {
  seccomp_program program;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) {
    program.error = "seccomp_init failed";
    return program;
  }
  auto deny = [&](int syscall_nr, int err) {
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), syscall_nr, 0);
  };
  int rc = 0;
  rc |= deny(SCMP_SYS(fork), EPERM);
  rc |= deny(SCMP_SYS(vfork), EPERM);
  // clone creates threads too; only a clone without CLONE_THREAD makes a new process.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  // clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc fall back to
  // clone for threads, which the rule above then checks.
  rc |= deny(SCMP_SYS(clone3), ENOSYS);
  rc |= deny(SCMP_SYS(socket), EPERM);
  rc |= deny(SCMP_SYS(connect), EPERM);
  if (rc != 0) {
    program.error = "seccomp_rule_add failed";
    seccomp_release(ctx);
    return program;
  }
  int mem_fd = ::memfd_create("aopt-seccomp", MFD_CLOEXEC);
  if (mem_fd < 0) {
    program.error = "memfd_create: " + errno_text(errno);
    seccomp_release(ctx);
    return program;
  }
  fd_guard mem(mem_fd);
  rc = seccomp_export_bpf(ctx, mem.get());
  seccomp_release(ctx);
  if (rc != 0) {
    program.error = "seccomp_export_bpf: " + errno_text(-rc);
    return program;
  }
  off_t size = ::lseek(mem.get(), 0, SEEK_END);
  if (size <= 0 || size % sizeof(sock_filter) != 0 || ::lseek(mem.get(), 0, SEEK_SET) != 0) {
    program.error = "seccomp_export_bpf wrote an unexpected program size";
    return program;
  }
  program.filter.resize(static_cast<size_t>(size) / sizeof(sock_filter));
  auto* out = reinterpret_cast<char*>(program.filter.data());
  size_t done = 0;
  while (done < static_cast<size_t>(size)) {
    ssize_t n = ::read(mem.get(), out + done, static_cast<size_t>(size) - done);
    if (n <= 0) {
      program.error = "reading the seccomp program failed";
      program.filter.clear();
      return program;
    }
    done += static_cast<size_t>(n);
  }
  return program;
}

const seccomp_program& sandbox_program() {
  static const seccomp_program program = build_seccomp_program();
  return program;
}

// What the child reports through the status pipe before exec. Only `netns` is not fatal.
enum class child_stage : int { netns = 1, chdir, rlimit, no_new_privs, seccomp, exec, dup };

struct child_report {
  child_stage stage;
  int error;
};

[[noreturn]] void child_fail(int status_fd, child_stage stage) {
  child_report report{stage, errno};
  ssize_t ignored = ::write(status_fd, &report, sizeof(report));
  (void)ignored;
  ::_exit(127);
}

void child_close_other_fds(int keep_fd) {
  // close_range keeps the child from inheriting descriptors other threads of a busy parent
  // opened without O_CLOEXEC.
  auto close_from_to = [](unsigned first, unsigned last) {
    if (first > last) return;
    if (::syscall(SYS_close_range, first, last, 0) == 0) return;
    rlimit rl{};
    unsigned max_fd = 4096;
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
      max_fd = static_cast<unsigned>(rl.rlim_cur);
    }
    for (unsigned fd = first; fd <= last && fd < max_fd; ++fd) ::close(static_cast<int>(fd));
  };
  auto keep = static_cast<unsigned>(keep_fd);
  close_from_to(3, keep - 1);
  close_from_to(keep + 1, ~0U);
}

bool child_set_limit(int resource, uint64_t soft, uint64_t hard) {
  rlimit rl{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
  return ::setrlimit(resource, &rl) == 0;
}

// Runs in the forked child: only async-signal-safe calls from here to exec.
[[noreturn]] void run_child(const subprocess_options& options, char* const* argv, char* const* envp,
                            int stdin_fd, int stdout_fd, int stderr_fd, int status_fd,
                            const sock_fprog* program) {
  ::setpgid(0, 0);
  // Signal dispositions the parent ignores (SIGPIPE under asio) survive exec; reset them.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  sigset_t empty;
  ::sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);

  if (::dup2(stdin_fd, 0) < 0 || ::dup2(stdout_fd, 1) < 0 || ::dup2(stderr_fd, 2) < 0) {
    child_fail(status_fd, child_stage::dup);
  }
  child_close_other_fds(status_fd);

  const subprocess_limits& limits = options.limits;
  bool limits_ok = child_set_limit(RLIMIT_CORE, 0, 0);
  if (limits.cpu_seconds > 0) {
    limits_ok &= child_set_limit(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1);
  }
  if (limits.address_space_bytes > 0) {
    limits_ok &= child_set_limit(RLIMIT_AS, limits.address_space_bytes, limits.address_space_bytes);
  }
  if (limits.file_size_bytes > 0) {
    limits_ok &= child_set_limit(RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes);
  }
  if (limits.max_processes > 0) {
    limits_ok &= child_set_limit(RLIMIT_NPROC, limits.max_processes, limits.max_processes);
  }
  if (!limits_ok) child_fail(status_fd, child_stage::rlimit);

  if (!options.working_dir.empty() && ::chdir(options.working_dir.c_str()) != 0) {
    child_fail(status_fd, child_stage::chdir);
  }
  if (options.sandbox) {
    if (::unshare(CLONE_NEWNET) != 0) {
      child_report report{child_stage::netns, errno};
      ssize_t ignored = ::write(status_fd, &report, sizeof(report));
      (void)ignored;
    }
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
      child_fail(status_fd, child_stage::no_new_privs);
    }
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program) != 0) {
      child_fail(status_fd, child_stage::seccomp);
    }
  }
  ::execve(argv[0], argv, envp);
  child_fail(status_fd, child_stage::exec);
}

const char* stage_text(child_stage stage) {
  switch (stage) {
    case child_stage::netns:
      return "unshare(CLONE_NEWNET)";
    case child_stage::chdir:
      return "chdir";
    case child_stage::rlimit:
      return "setrlimit";
    case child_stage::no_new_privs:
      return "prctl(PR_SET_NO_NEW_PRIVS)";
    case child_stage::seccomp:
      return "installing the seccomp filter";
    case child_stage::exec:
      return "execve";
    case child_stage::dup:
      return "dup2";
  }
  return "setup";
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> child_environment(const subprocess_options& options) {
  std::vector<std::string> env;
  if (options.inherit_environment) {
    for (char** e = environ; *e != nullptr; ++e) {
      std::string entry(*e);
      std::string name = entry.substr(0, entry.find('='));
      bool overridden = false;
      for (const auto& o : options.environment) {
        if (o.compare(0, name.size() + 1, name + "=") == 0) overridden = true;
      }
      if (!overridden) env.push_back(std::move(entry));
    }
  }
  env.insert(env.end(), options.environment.begin(), options.environment.end());
  return env;
}

void append_capped(std::string& out, const char* data, size_t n, size_t cap, bool& truncated) {
  if (out.size() >= cap) {
    truncated = truncated || n > 0;
    return;
  }
  size_t take = std::min(n, cap - out.size());
  out.append(data, take);
  if (take < n) truncated = true;
}

}  // namespace

std::string signal_name(int signal_number) {
  if (const char* abbrev = ::sigabbrev_np(signal_number)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signal_number);
}

std::string subprocess_result::describe() const {
  if (timed_out) return fmt::format("timed out after {:.1f} s", wall_seconds);
  if (exited) return "exit code " + std::to_string(exit_code);
  return "signal " + signal_name(term_signal);
}

result<subprocess> subprocess::start(const subprocess_options& options) {
  if (options.argv.empty() || options.argv[0].empty()) {
    return invalid_argument("subprocess: empty argv");
  }
  const sock_fprog* program_ptr = nullptr;
  sock_fprog program{};
  if (options.sandbox) {
    const seccomp_program& compiled = sandbox_program();
    if (!compiled.error.empty()) {
      return internal_error("subprocess sandbox: " + compiled.error);
    }
    program.len = static_cast<unsigned short>(compiled.filter.size());
    program.filter = const_cast<sock_filter*>(compiled.filter.data());
    program_ptr = &program;
  }

  std::vector<std::string> argv_strings = options.argv;
  std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(env_strings);

  fd_guard dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (dev_null.get() < 0) return internal_error("subprocess: open /dev/null: " + errno_text(errno));
  int out_pipe[2], err_pipe[2], status_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return internal_error("subprocess: pipe: " + errno_text(errno));
  fd_guard out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0)
    return internal_error("subprocess: pipe: " + errno_text(errno));
  fd_guard err_read(err_pipe[0]), err_write(err_pipe[1]);
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    return internal_error("subprocess: pipe: " + errno_text(errno));
  }
  fd_guard status_read(status_pipe[0]), status_write(status_pipe[1]);

  subprocess child;
  child.start_time_ = now_seconds();
  pid_t pid = ::fork();
  if (pid < 0) return internal_error("subprocess: fork: " + errno_text(errno));
  if (pid == 0) {
    run_child(options, argv.data(), envp.data(), dev_null.get(), out_write.get(), err_write.get(),
              status_write.get(), program_ptr);
  }
  // Both sides set the group so that a kill of the group right after start cannot miss it.
  ::setpgid(pid, pid);
  child.pid_ = pid;
  child.output_limit_bytes_ = options.output_limit_bytes;
  child.wall_seconds_ = options.limits.wall_seconds;
  out_write.reset();
  err_write.reset();
  status_write.reset();

  // The status pipe closes on exec (O_CLOEXEC) or carries the reason setup failed.
  bool fatal = false;
  child_report fatal_report{};
  child.network_isolated_ = options.sandbox;
  for (;;) {
    child_report report{};
    ssize_t n = ::read(status_read.get(), &report, sizeof(report));
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof(report))) break;
    if (report.stage == child_stage::netns) {
      child.network_isolated_ = false;
      child.notes_.push_back("no network namespace (" + errno_text(report.error) +
                             "); socket and connect are still blocked by seccomp");
    } else {
      fatal = true;
      fatal_report = report;
    }
  }
  if (fatal) {
    child.kill_and_reap();
    std::string what =
        fmt::format("subprocess: {} of '{}' failed: {}", stage_text(fatal_report.stage),
                    options.argv[0], errno_text(fatal_report.error));
    if (fatal_report.stage == child_stage::exec && fatal_report.error == ENOENT) {
      return not_found(what);
    }
    if (fatal_report.stage == child_stage::chdir && fatal_report.error == ENOENT) {
      return not_found(what);
    }
    return internal_error(what);
  }

  child.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  child.stdout_fd_ = out_read.release();
  child.stderr_fd_ = err_read.release();
  ::fcntl(child.stdout_fd_, F_SETFL, O_NONBLOCK);
  ::fcntl(child.stderr_fd_, F_SETFL, O_NONBLOCK);
  return child;
}

subprocess::subprocess(subprocess&& other) noexcept {
  *this = std::move(other);
}

subprocess& subprocess::operator=(subprocess&& other) noexcept {
  if (this != &other) {
    kill_and_reap();
    close_fds();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::exchange(other.pidfd_, -1);
    stdout_fd_ = std::exchange(other.stdout_fd_, -1);
    stderr_fd_ = std::exchange(other.stderr_fd_, -1);
    start_time_ = other.start_time_;
    output_limit_bytes_ = other.output_limit_bytes_;
    wall_seconds_ = other.wall_seconds_;
    network_isolated_ = other.network_isolated_;
    notes_ = std::move(other.notes_);
  }
  return *this;
}

subprocess::~subprocess() {
  kill_and_reap();
  close_fds();
}

void subprocess::kill_and_reap() noexcept {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void subprocess::close_fds() noexcept {
  for (int* fd : {&pidfd_, &stdout_fd_, &stderr_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

subprocess_result subprocess::wait() {
  subprocess_result result;
  result.network_isolated = network_isolated_;
  result.notes = notes_;
  if (pid_ <= 0) return result;

  const double deadline = wall_seconds_ > 0 ? start_time_ + wall_seconds_ : 0;
  char buffer[65536];
  auto drain = [&](int& fd, std::string& out, bool& truncated) {
    for (;;) {
      ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n > 0) {
        append_capped(out, buffer, static_cast<size_t>(n), output_limit_bytes_, truncated);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {  // EOF
        ::close(fd);
        fd = -1;
      }
      return;  // EAGAIN: nothing more for now
    }
  };
  auto child_has_exited = [&] {
    siginfo_t info{};
    // WNOWAIT leaves the child a zombie, so its pid (= the group id) cannot be reused before
    // the group is killed below.
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid_;
  };

  bool exited = false;
  while (!exited) {
    int timeout_ms = -1;
    if (deadline > 0) {
      double left = deadline - now_seconds();
      if (left <= 0) {
        result.timed_out = true;
        break;
      }
      timeout_ms = static_cast<int>(std::ceil(left * 1000));
    }
    pollfd fds[3];
    nfds_t count = 0;
    if (stdout_fd_ >= 0) fds[count++] = {stdout_fd_, POLLIN, 0};
    if (stderr_fd_ >= 0) fds[count++] = {stderr_fd_, POLLIN, 0};
    if (pidfd_ >= 0) {
      fds[count++] = {pidfd_, POLLIN, 0};
    } else if (timeout_ms < 0 || timeout_ms > 10) {
      timeout_ms = 10;  // no pidfd (old kernel): poll for the exit
    }
    int rc = ::poll(fds, count, timeout_ms);
    if (rc < 0 && errno != EINTR) break;
    if (stdout_fd_ >= 0) drain(stdout_fd_, result.stdout_text, result.stdout_truncated);
    if (stderr_fd_ >= 0) drain(stderr_fd_, result.stderr_text, result.stderr_truncated);
    exited = child_has_exited();
  }

  // Whatever else is left in the group (a grandchild holding the pipes open) goes too.
  ::kill(-pid_, SIGKILL);
  if (result.timed_out) ::kill(pid_, SIGKILL);
  int wait_status = 0;
  rusage usage{};
  while (::wait4(pid_, &wait_status, 0, &usage) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  result.wall_seconds = now_seconds() - start_time_;
  result.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  if (WIFEXITED(wait_status)) {
    result.exited = !result.timed_out;
    result.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    result.term_signal = WTERMSIG(wait_status);
  }
  // Output written before the end is still in the pipes; anything a killed writer did not
  // write is gone, so this cannot block.
  if (stdout_fd_ >= 0) drain(stdout_fd_, result.stdout_text, result.stdout_truncated);
  if (stderr_fd_ >= 0) drain(stderr_fd_, result.stderr_text, result.stderr_truncated);
  close_fds();
  return result;
}

result<subprocess_result> run_subprocess(const subprocess_options& options) {
  auto child = subprocess::start(options);
  if (!child.ok()) return child.error();
  return child->wait();
}

}  // namespace aopt
