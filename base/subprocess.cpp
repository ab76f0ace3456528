#include "base/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "base/sandbox.hpp"

namespace aopt {

namespace {

// What a child's stderr may hold in the parent, whatever its output limit (see wait()).
constexpr size_t error_output_limit_bytes = 4u << 20;

// How long a child retries a program that is busy being written (see run_child): 0.5 s.
constexpr int exec_busy_attempts = 500;
constexpr long exec_busy_pause_ns = 1'000'000;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string errno_text(int err) {
  return std::strerror(err);
}

// Running out of descriptors, processes or memory is the machine's state, not the caller's
// mistake: resource_exhausted, which callers report as an infrastructure failure.
status os_error_code(int err, std::string what) {
  if (err == EMFILE || err == ENFILE || err == EAGAIN || err == ENOMEM || err == ENOSPC) {
    return {status_code::resource_exhausted, std::move(what)};
  }
  return internal_error(std::move(what));
}

status os_error(const char* call, int err) {
  return os_error_code(err, fmt::format("subprocess: {}: {}", call, errno_text(err)));
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

// An empty memory file the child writes its standard output into (stdout_to_memory_file).
result<int> memory_output_file() {
  const int file = ::memfd_create("aopt-stdout", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (file < 0) return os_error("memfd_create", errno);
  return file;
}

// What the child reports through the status pipe before exec. Only netns is not fatal.
enum class child_stage : int { netns = 1, chdir, rlimit, sandbox, exec, dup };

struct child_report {
  child_stage stage;
  int error;
  char step[48];  // the sandbox step that failed
};

void child_write_report(int status_fd, child_stage stage, int error, const char* step = nullptr) {
  child_report report{stage, error, {}};
  for (size_t i = 0; step != nullptr && step[i] != '\0' && i + 1 < sizeof(report.step); ++i) {
    report.step[i] = step[i];
  }
  ssize_t ignored = ::write(status_fd, &report, sizeof(report));
  (void)ignored;
}

[[noreturn]] void child_fail(int status_fd, child_stage stage) {
  child_write_report(status_fd, stage, errno);
  ::_exit(127);
}

// Closes every descriptor from `first` on except those in `keep` (-1 entries ignored).
void child_close_from(unsigned first, int (&keep)[3]) {
  // close_range keeps the child from inheriting descriptors other threads of a busy parent
  // opened without O_CLOEXEC.
  auto close_from_to = [](unsigned from, unsigned to) {
    if (from > to) return;
    if (::syscall(SYS_close_range, from, to, 0) == 0) return;
    rlimit rl{};
    unsigned max_fd = 4096;
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
      max_fd = static_cast<unsigned>(rl.rlim_cur);
    }
    for (unsigned fd = from; fd <= to && fd < max_fd; ++fd) ::close(static_cast<int>(fd));
  };
  std::sort(std::begin(keep), std::end(keep));
  unsigned next = first;
  for (int fd : keep) {
    if (fd < 0 || static_cast<unsigned>(fd) < next) continue;
    close_from_to(next, static_cast<unsigned>(fd) - 1);
    next = static_cast<unsigned>(fd) + 1;
  }
  close_from_to(next, ~0U);
}

bool child_set_limit(int resource, uint64_t soft, uint64_t hard) {
  rlimit rl{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
  return ::setrlimit(resource, &rl) == 0;
}

// The write end of a pipe whose read end only the parent holds reports an error once the
// parent is gone.
bool child_parent_gone(int status_fd) {
  pollfd p{status_fd, 0, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & POLLERR) != 0;
}

// What the child needs, prepared by the parent: the child shares the parent's memory until
// exec and must not allocate.
struct child_start {
  const subprocess_options* options;
  char* const* argv;
  char* const* envp;
  int stdin_fd;
  int stdout_fd;
  int stderr_fd;
  int status_fd;
  const sandbox* box;
  pid_t parent;
};

// Runs in the cloned child, on its own stack and in the parent's memory (CLONE_VM, the parent
// thread suspended until exec): only async-signal-safe calls from here to exec, and no writes
// to anything but this stack.
[[noreturn]] void run_child(const child_start& start) {
  const subprocess_options& options = *start.options;
  int status_fd = start.status_fd;
  const sandbox* box = start.box;
  ::setpgid(0, 0);
  // Dies with the supervisor; if it is already gone, the death signal came too early to count.
  // The init of a new PID namespace sees no parent (getppid() is 0): the status pipe tells.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const pid_t parent_seen = ::getppid();
  if ((parent_seen != 0 && parent_seen != start.parent) || child_parent_gone(status_fd)) {
    ::_exit(127);
  }
  // Signal dispositions the parent ignores (SIGPIPE under asio) survive exec; reset them.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  sigset_t empty;
  ::sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);

  if (::dup2(start.stdin_fd, 0) < 0 || ::dup2(start.stdout_fd, 1) < 0 ||
      ::dup2(start.stderr_fd, 2) < 0) {
    child_fail(status_fd, child_stage::dup);
  }
  // Passed descriptors become 3, 4, ...: first move everything to keep above that range.
  const int first_free = 3 + static_cast<int>(options.pass_fds.size());
  int moved_status = ::fcntl(status_fd, F_DUPFD_CLOEXEC, first_free);
  if (moved_status < 0) child_fail(status_fd, child_stage::dup);
  status_fd = moved_status;
  sandbox_child_fds sandbox_fds;
  if (box != nullptr) {
    for (auto [from, to] : {std::pair{box->child_fds().ruleset, &sandbox_fds.ruleset},
                            std::pair{box->child_fds().monitor, &sandbox_fds.monitor}}) {
      if (from < 0) continue;
      *to = ::fcntl(from, F_DUPFD_CLOEXEC, first_free);
      if (*to < 0) child_fail(status_fd, child_stage::dup);
    }
  }
  // Every passed descriptor is moved above the range before any lands in it: a later one may
  // be numbered 3 + i itself, and placing the i-th first would overwrite it.
  int moved[max_pass_fds];
  for (size_t i = 0; i < options.pass_fds.size(); ++i) {
    moved[i] = ::fcntl(options.pass_fds[i], F_DUPFD_CLOEXEC, first_free);
    if (moved[i] < 0) child_fail(status_fd, child_stage::dup);
  }
  for (size_t i = 0; i < options.pass_fds.size(); ++i) {
    // dup2 clears close-on-exec on the copy: the program receives it.
    if (::dup2(moved[i], 3 + static_cast<int>(i)) < 0) child_fail(status_fd, child_stage::dup);
  }
  int keep[3] = {status_fd, sandbox_fds.ruleset, sandbox_fds.monitor};
  child_close_from(static_cast<unsigned>(first_free), keep);

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
  if (box != nullptr) {
    if (!box->enter_network_namespace()) child_write_report(status_fd, child_stage::netns, errno);
    sandbox_failure failure = box->confine(sandbox_fds);
    if (failure.step != nullptr) {
      child_write_report(status_fd, child_stage::sandbox, failure.error, failure.step);
      ::_exit(127);
    }
  }
  // Another thread of the parent that writes a program (a cached executable) while a sibling
  // child is cloned lends that child its write descriptor until the child closes it above: for
  // that moment the program is busy (ETXTBSY). The writer is finished; the sibling lets go.
  for (int attempt = 1;; ++attempt) {
    ::execve(start.argv[0], start.argv, start.envp);
    if (errno != ETXTBSY || attempt == exec_busy_attempts) break;
    struct timespec pause {
      0, exec_busy_pause_ns
    };
    ::nanosleep(&pause, nullptr);
  }
  child_fail(status_fd, child_stage::exec);
}

int child_main(void* start) {
  run_child(*static_cast<const child_start*>(start));
}

// The cloned child's stack: mapped by the parent, unmapped once the child has exec'd or ended.
class child_stack {
 public:
  static constexpr size_t size = 256 * 1024;
  child_stack()
      : base_(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                     -1, 0)) {}
  child_stack(const child_stack&) = delete;
  child_stack& operator=(const child_stack&) = delete;
  ~child_stack() {
    if (mapped()) ::munmap(base_, size);
  }
  bool mapped() const { return base_ != MAP_FAILED; }
  void* top() const { return static_cast<char*>(base_) + size; }

 private:
  void* base_;
};

// Blocks every signal of the calling thread for its lifetime: no handler of the parent may run
// in the child while it shares the parent's memory, before it resets the dispositions.
class all_signals_blocked {
 public:
  all_signals_blocked() {
    sigset_t all;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous_);
  }
  all_signals_blocked(const all_signals_blocked&) = delete;
  all_signals_blocked& operator=(const all_signals_blocked&) = delete;
  ~all_signals_blocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

 private:
  sigset_t previous_;
};

// Starts the child without copying the parent's page tables, which a fork of a daemon holding
// hundreds of megabytes pays on every evaluation: the child runs in the parent's memory, and
// the calling thread waits until it has exec'd or ended (CLONE_VM | CLONE_VFORK, as
// posix_spawn does). A compiler driver becomes the init of a new PID namespace (CLONE_NEWPID)
// so that the kernel kills every helper it left behind when it ends; without the privilege for
// that, `pid_namespace_error` gets the reason and the child starts without one. A sandboxed
// child of a process that is not root starts in a new user namespace (sandbox.hpp), which also
// gives it that PID namespace and its network namespace without privilege; when the kernel
// refuses one, `user_namespace_error` gets the reason.
result<pid_t> clone_child(child_start& launch, bool new_pid_namespace, bool new_user_namespace,
                          int& pid_namespace_error, int& user_namespace_error) {
  child_stack stack;
  if (!stack.mapped()) return os_error("mmap of the child's stack", errno);
  all_signals_blocked blocked;
  constexpr int flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
  if (new_user_namespace) {
    const int pid_flag = new_pid_namespace ? CLONE_NEWPID : 0;
    pid_t pid = ::clone(child_main, stack.top(), flags | CLONE_NEWUSER | pid_flag, &launch);
    if (pid >= 0) return pid;
    user_namespace_error = errno;
  }
  if (new_pid_namespace) {
    pid_t pid = ::clone(child_main, stack.top(), flags | CLONE_NEWPID, &launch);
    if (pid >= 0) return pid;
    pid_namespace_error = errno;
  }
  pid_t pid = ::clone(child_main, stack.top(), flags, &launch);
  if (pid < 0) return os_error("clone", errno);
  return pid;
}

const char* stage_text(child_stage stage) {
  switch (stage) {
    case child_stage::netns:
      return "unshare(CLONE_NEWNET)";
    case child_stage::chdir:
      return "chdir";
    case child_stage::rlimit:
      return "setrlimit";
    case child_stage::sandbox:
      return "sandbox";
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

// Replaces each secret, and a tail that is the start of one (output cut off mid-secret), with
// "[redacted]". Short tails are left: three characters say nothing of a secret.
void redact(std::string& text, const std::vector<std::string>& secrets) {
  constexpr const char* mark = "[redacted]";
  constexpr size_t min_tail = 4;
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    for (size_t pos = 0; (pos = text.find(secret, pos)) != std::string::npos;) {
      text.replace(pos, secret.size(), mark);
      pos += std::char_traits<char>::length(mark);
    }
    for (size_t len = std::min(secret.size() - 1, text.size()); len >= min_tail; --len) {
      if (text.compare(text.size() - len, len, secret, 0, len) == 0) {
        text.replace(text.size() - len, len, mark);
        break;
      }
    }
  }
}

}  // namespace

std::string signal_name(int signal_number) {
  if (const char* abbrev = ::sigabbrev_np(signal_number)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signal_number);
}

std::string subprocess_result::describe() const {
  if (timed_out) return fmt::format("timed out after {:.1f} s", wall_seconds);
  if (cancelled) return fmt::format("cancelled after {:.1f} s", wall_seconds);
  if (exited) return "exit code " + std::to_string(exit_code);
  return "signal " + signal_name(term_signal);
}

result<subprocess> subprocess::start(const subprocess_options& options) {
  if (options.argv.empty() || options.argv[0].empty()) {
    return invalid_argument("subprocess: empty argv");
  }
  if (options.stdout_to_memory_file &&
      options.limits.file_size_bytes <= options.output_limit_bytes) {
    return invalid_argument(
        "subprocess: a standard output in memory needs a file-size limit above its output limit");
  }
  if (options.pass_fds.size() > max_pass_fds) {
    return invalid_argument("subprocess: " + std::to_string(options.pass_fds.size()) +
                            " descriptors to pass; at most " + std::to_string(max_pass_fds));
  }
  std::optional<sandbox> box;
  if (options.sandbox) {
    sandbox_spec spec;
    spec.allow_processes = options.sandbox_allows_processes;
    spec.readable = options.sandbox_readable;
    std::filesystem::path program_dir = std::filesystem::path(options.argv[0]).parent_path();
    if (!program_dir.empty()) spec.readable.push_back(program_dir.string());
    spec.writable = options.sandbox_writable;
    if (!options.working_dir.empty()) spec.writable.push_back(options.working_dir);
    spec.monitor_access = !options.sandbox_allows_processes;
    spec.identity = options.sandbox_user;
    auto prepared = sandbox::prepare(spec);
    if (!prepared.ok()) return prepared.error();
    box.emplace(std::move(prepared).value());
  }

  std::vector<std::string> argv_strings = options.argv;
  std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(env_strings);

  fd_guard dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (dev_null.get() < 0) return os_error("open /dev/null", errno);
  int out_pipe[2], err_pipe[2], status_pipe[2];
  fd_guard out_read, out_write, out_file;
  if (options.stdout_to_memory_file) {
    result<int> file = memory_output_file();
    if (!file.ok()) return file.error();
    out_file.reset(*file);
    out_write.reset(::fcntl(out_file.get(), F_DUPFD_CLOEXEC, 0));
    if (out_write.get() < 0) return os_error("dup", errno);
  } else {
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return os_error("pipe", errno);
    out_read.reset(out_pipe[0]);
    out_write.reset(out_pipe[1]);
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return os_error("pipe", errno);
  fd_guard err_read(err_pipe[0]), err_write(err_pipe[1]);
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) return os_error("pipe", errno);
  fd_guard status_read(status_pipe[0]), status_write(status_pipe[1]);

  subprocess child;
  child.start_time_ = now_seconds();
  child_start launch{&options,           argv.data(),           envp.data(),
                     dev_null.get(),     out_write.get(),       err_write.get(),
                     status_write.get(), box ? &*box : nullptr, ::getpid()};
  int pid_namespace_error = 0;
  int user_namespace_error = 0;
  const bool user_namespace = box && box->user_namespace();
  result<pid_t> cloned = clone_child(launch, box && box->allows_processes(), user_namespace,
                                     pid_namespace_error, user_namespace_error);
  if (!cloned.ok()) return cloned.error();
  const pid_t pid = cloned.value();
  // The child has set its own process group: the parent resumes only after its exec or end.
  child.pid_ = pid;
  child.output_limit_bytes_ = options.output_limit_bytes;
  child.wall_seconds_ = options.limits.wall_seconds;
  child.cancel_fd_ = options.cancel_fd;
  child.redact_ = options.redact;
  out_write.reset();
  err_write.reset();
  status_write.reset();

  // The status pipe closes on exec (O_CLOEXEC) or carries the reason setup failed.
  bool fatal = false;
  child_report fatal_report{};
  child.network_isolated_ = box.has_value();
  child.filesystem_confined_ = box && box->filesystem_confined();
  if (box) child.notes_ = box->notes();
  child.own_user_namespace_ = user_namespace && user_namespace_error == 0;
  if (user_namespace_error != 0) {
    child.notes_.push_back("no user namespace (" + errno_text(user_namespace_error) +
                           "): the child holds aopt's uid in aopt's own namespaces");
  }
  if (pid_namespace_error != 0) {
    child.notes_.push_back("no PID namespace (" + errno_text(pid_namespace_error) +
                           "): helpers of the program are killed with its process group only");
  }
  for (;;) {
    child_report report{};
    ssize_t n = ::read(status_read.get(), &report, sizeof(report));
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof(report))) break;
    if (report.stage == child_stage::netns) {
      child.network_isolated_ = false;
      child.notes_.push_back("no network namespace (" + errno_text(report.error) +
                             "); sockets and TCP are still denied by seccomp and Landlock");
    } else {
      fatal = true;
      fatal_report = report;
    }
  }
  if (box && !fatal) child.monitor_ = box->take_monitor(pid);
  if (fatal) {
    child.kill_and_reap();
    std::string step = fatal_report.stage == child_stage::sandbox
                           ? std::string("sandbox: ") + fatal_report.step
                           : stage_text(fatal_report.stage);
    std::string what = fmt::format("subprocess: {} of '{}' failed: {}", step, options.argv[0],
                                   errno_text(fatal_report.error));
    if (fatal_report.stage == child_stage::exec && fatal_report.error == ENOENT) {
      return not_found(what);
    }
    if (fatal_report.stage == child_stage::chdir && fatal_report.error == ENOENT) {
      return not_found(what);
    }
    return os_error_code(fatal_report.error, what);
  }

  child.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  child.stdout_fd_ = out_read.release();
  child.stdout_file_ = out_file.release();
  child.stderr_fd_ = err_read.release();
  if (child.stdout_fd_ >= 0) ::fcntl(child.stdout_fd_, F_SETFL, O_NONBLOCK);
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
    stdout_file_ = std::exchange(other.stdout_file_, -1);
    stderr_fd_ = std::exchange(other.stderr_fd_, -1);
    start_time_ = other.start_time_;
    output_limit_bytes_ = other.output_limit_bytes_;
    wall_seconds_ = other.wall_seconds_;
    cancel_fd_ = other.cancel_fd_;
    network_isolated_ = other.network_isolated_;
    filesystem_confined_ = other.filesystem_confined_;
    own_user_namespace_ = other.own_user_namespace_;
    monitor_ = std::move(other.monitor_);
    other.monitor_.reset();
    redact_ = std::move(other.redact_);
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

void subprocess::finish_monitor(subprocess_result& result) {
  if (!monitor_) return;
  result.denied_access = monitor_->denials();
  monitor_.reset();
}

void subprocess::take_memory_output(subprocess_result& result) {
  unique_fd file(std::exchange(stdout_file_, -1));
  // The child and its group are gone: nothing can write to the file or map it any more.
  struct stat st {};
  uint64_t bytes = ::fstat(file.get(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (bytes > output_limit_bytes_) {
    result.stdout_truncated = true;
    bytes = output_limit_bytes_;
  }
  if (::ftruncate(file.get(), static_cast<off_t>(bytes)) != 0 ||
      ::fcntl(file.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) !=
          0 ||
      ::lseek(file.get(), 0, SEEK_SET) != 0) {
    result.notes.push_back("the standard output's memory file could not be sealed: " +
                           errno_text(errno));
    return;
  }
  result.stdout_file = std::move(file);
  result.stdout_file_bytes = bytes;
}

void subprocess::close_fds() noexcept {
  for (int* fd : {&pidfd_, &stdout_fd_, &stdout_file_, &stderr_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

subprocess_result subprocess::wait() {
  subprocess_result result;
  result.network_isolated = network_isolated_;
  result.filesystem_confined = filesystem_confined_;
  result.own_user_namespace = own_user_namespace_;
  result.notes = notes_;
  if (pid_ <= 0) return result;

  const double deadline = wall_seconds_ > 0 ? start_time_ + wall_seconds_ : 0;
  char buffer[65536];
  auto drain = [&](int& fd, std::string& out, bool& truncated) {
    // The limit is the caller's for stdout (a candidate's delivery channel may be hundreds of
    // MiB); stderr is diagnostics, read for its first lines, and a candidate that floods it must
    // not make the parent hold as much again (issue 30's red team: 512 MiB of stderr took aopt
    // to 1.1 GB resident).
    const size_t cap = &out == &result.stderr_text
                           ? std::min(output_limit_bytes_, error_output_limit_bytes)
                           : output_limit_bytes_;
    for (;;) {
      ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n > 0) {
        append_capped(out, buffer, static_cast<size_t>(n), cap, truncated);
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
    pollfd fds[5];
    nfds_t count = 0;
    if (stdout_fd_ >= 0) fds[count++] = {stdout_fd_, POLLIN, 0};
    if (stderr_fd_ >= 0) fds[count++] = {stderr_fd_, POLLIN, 0};
    // The program waits in its open() until the monitor answers: serve it with the pipes.
    const nfds_t monitor_slot = count;
    if (monitor_) fds[count++] = {monitor_->fd(), POLLIN, 0};
    if (pidfd_ >= 0) {
      fds[count++] = {pidfd_, POLLIN, 0};
    } else if (timeout_ms < 0 || timeout_ms > 10) {
      timeout_ms = 10;  // no pidfd (old kernel): poll for the exit
    }
    const nfds_t cancel_slot = count;
    if (cancel_fd_ >= 0) fds[count++] = {cancel_fd_, POLLIN, 0};
    int rc = ::poll(fds, count, timeout_ms);
    if (rc < 0 && errno != EINTR) break;
    if (cancel_fd_ >= 0 && rc > 0 && (fds[cancel_slot].revents & POLLIN) != 0) {
      result.cancelled = true;
      break;
    }
    if (monitor_ && rc > 0) {
      short events = fds[monitor_slot].revents;
      if ((events & POLLIN) != 0) {
        monitor_->handle_one();
      } else if ((events & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
        finish_monitor(result);
      }
    }
    if (stdout_fd_ >= 0) drain(stdout_fd_, result.stdout_text, result.stdout_truncated);
    if (stderr_fd_ >= 0) drain(stderr_fd_, result.stderr_text, result.stderr_truncated);
    exited = child_has_exited();
  }

  // Whatever else is left in the group (a grandchild holding the pipes open) goes too.
  ::kill(-pid_, SIGKILL);
  if (result.timed_out || result.cancelled) ::kill(pid_, SIGKILL);
  int wait_status = 0;
  rusage usage{};
  while (::wait4(pid_, &wait_status, 0, &usage) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  result.wall_seconds = now_seconds() - start_time_;
  result.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  if (WIFEXITED(wait_status)) {
    result.exited = !result.timed_out && !result.cancelled;
    result.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    result.term_signal = WTERMSIG(wait_status);
  }
  // Output written before the end is still in the pipes; anything a killed writer did not
  // write is gone, so this cannot block.
  if (stdout_fd_ >= 0) drain(stdout_fd_, result.stdout_text, result.stdout_truncated);
  if (stderr_fd_ >= 0) drain(stderr_fd_, result.stderr_text, result.stderr_truncated);
  if (stdout_file_ >= 0) take_memory_output(result);
  finish_monitor(result);
  close_fds();
  redact(result.stdout_text, redact_);
  redact(result.stderr_text, redact_);
  return result;
}

result<subprocess_result> run_subprocess(const subprocess_options& options) {
  auto child = subprocess::start(options);
  if (!child.ok()) return child.error();
  return child->wait();
}

}  // namespace aopt
