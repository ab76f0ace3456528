#include "base/subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <doctest/doctest.h>

#include "base/cancellation.hpp"
#include "support/c_program.hpp"

namespace fs = std::filesystem;

namespace {

// A directory for the programs these tests compile; removed at the end of each test.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (fs::temp_directory_path() / "aopt-subprocess-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

aopt::subprocess_result run_checked(aopt::subprocess_options options) {
  auto r = aopt::run_subprocess(options);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

aopt::subprocess_result run_shell(const std::string& script, double wall_seconds = 20) {
  aopt::subprocess_options o;
  o.argv = {"/bin/sh", "-c", script};
  o.limits.wall_seconds = wall_seconds;
  return run_checked(o);
}

// `script` under /bin/sh, its standard output in a memory file of 1000 bytes at most.
aopt::subprocess_options memory_output(const std::string& script) {
  aopt::subprocess_options o;
  o.argv = {"/bin/sh", "-c", script};
  o.stdout_to_memory_file = true;
  o.output_limit_bytes = 1000;
  o.limits.file_size_bytes = 2000;
  o.limits.wall_seconds = 20;
  return o;
}

std::string compile_c(const temp_dir& dir, const std::string& name, const std::string& source) {
  return aopt::testing::compile_c_program(dir.path(), name, source);
}

const char* fork_probe_source = R"(
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid < 0) { printf("fork failed errno=%d\n", errno); return errno == EPERM ? 10 : 11; }
  waitpid(pid, 0, 0);
  printf("fork ok\n");
  return 0;
}
)";

// The first child of this process found under /proc, or -1 while there is none.
pid_t some_child() {
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream children(task.path() / "children");
    pid_t pid = -1;
    if (children >> pid) return pid;
  }
  return -1;
}

// Whether `pid` is inside a sleep system call (its retry pause), read from /proc.
bool sleeping_in_syscall(pid_t pid) {
  std::ifstream syscall_file("/proc/" + std::to_string(pid) + "/syscall");
  long number = -1;
  return (syscall_file >> number) && (number == SYS_clock_nanosleep || number == SYS_nanosleep);
}

}  // namespace

TEST_SUITE("base") {
  TEST_CASE("a child's exit code is reported") {
    auto r = run_shell("exit 3");
    CHECK(r.exited);
    CHECK(r.exit_code == 3);
    CHECK_FALSE(r.timed_out);
    CHECK_FALSE(r.succeeded());
    CHECK(r.describe() == "exit code 3");
  }

  TEST_CASE("a child killed by a signal reports the signal") {
    auto r = run_shell("kill -SEGV $$");
    CHECK_FALSE(r.exited);
    CHECK(r.term_signal == SIGSEGV);
    CHECK(r.describe() == "signal SIGSEGV");
    CHECK(aopt::signal_name(SIGABRT) == "SIGABRT");
  }

  TEST_CASE("stdout and stderr are captured separately") {
    auto r = run_shell("echo out; echo err >&2");
    CHECK(r.succeeded());
    CHECK(r.stdout_text == "out\n");
    CHECK(r.stderr_text == "err\n");
    CHECK_FALSE(r.stdout_truncated);
  }

  TEST_CASE("output beyond the cap is dropped and marked truncated") {
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "head -c 300000 /dev/zero"};
    o.output_limit_bytes = 1000;
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK(r.succeeded());  // the child was not blocked by a full pipe
    CHECK(r.stdout_text.size() == 1000);
    CHECK(r.stdout_truncated);
  }

  TEST_CASE("a standard output in memory comes back sealed, whole and never copied") {
    auto r = run_checked(memory_output("printf 'delivered'; echo diagnostics >&2"));
    CHECK(r.succeeded());
    CHECK(r.stdout_text.empty());
    CHECK(r.stderr_text == "diagnostics\n");
    REQUIRE(r.stdout_file.valid());
    CHECK(r.stdout_file_bytes == 9);
    CHECK_FALSE(r.stdout_truncated);
    char bytes[16] = {};
    CHECK(::pread(r.stdout_file.get(), bytes, sizeof bytes, 0) == 9);
    CHECK(std::string(bytes) == "delivered");
    // Nobody can change it now: writing, growing and shrinking are refused.
    CHECK(::pwrite(r.stdout_file.get(), "X", 1, 0) < 0);
    CHECK(::ftruncate(r.stdout_file.get(), 100) != 0);
    CHECK(::ftruncate(r.stdout_file.get(), 1) != 0);
  }

  TEST_CASE("a standard output in memory beyond its limit is cut and marked truncated") {
    aopt::subprocess_options o = memory_output("head -c 1500 /dev/zero");
    auto r = run_checked(o);
    CHECK(r.succeeded());
    REQUIRE(r.stdout_file.valid());
    CHECK(r.stdout_file_bytes == 1000);
    CHECK(r.stdout_truncated);
    // Without a file-size limit above the output limit the child could fill memory: refused.
    o.limits.file_size_bytes = 0;
    auto refused = aopt::run_subprocess(o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message().find("file-size limit") != std::string::npos);
  }

  TEST_CASE("the working directory and environment are the ones given") {
    temp_dir dir;
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "pwd; echo \"[$AOPT_TEST_VAR][$HOME]\""};
    o.working_dir = dir.path().string();
    o.inherit_environment = false;
    o.environment = {"AOPT_TEST_VAR=hello", "PATH=/usr/bin:/bin"};
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK(r.succeeded());
    CHECK(r.stdout_text == fs::canonical(dir.path()).string() + "\n[hello][]\n");
  }

  TEST_CASE("a missing program is not_found, not a child failure") {
    aopt::subprocess_options o;
    o.argv = {"/nonexistent/aopt-no-such-program"};
    auto r = aopt::run_subprocess(o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == aopt::status_code::not_found);
    CHECK(r.error().message().find("/nonexistent/aopt-no-such-program") != std::string::npos);
  }

  TEST_CASE("an infinite loop is killed at the wall-clock limit and reported as timed out") {
    auto r = run_shell("while :; do :; done", 0.5);
    CHECK(r.timed_out);
    CHECK_FALSE(r.exited);
    CHECK(r.wall_seconds >= 0.5);
    CHECK(r.wall_seconds < 3.0);
    CHECK(r.describe().find("timed out") == 0);
  }

  TEST_CASE(
      "a timeout kills the whole process group, so a background grandchild cannot hold "
      "the output pipe open") {
    // Without the group kill, the reader would wait for `sleep 30` to close stdout.
    auto r = run_shell("sleep 30 & sleep 30", 0.3);
    CHECK(r.timed_out);
    CHECK(r.wall_seconds < 5.0);
  }

  TEST_CASE("a grandchild left running after the child exits is killed with the group") {
    auto r = run_shell("sleep 30 & echo started", 20);
    CHECK(r.succeeded());
    CHECK(r.stdout_text == "started\n");
    CHECK(r.wall_seconds < 5.0);
  }

  TEST_CASE("the CPU-time limit stops a spinning child before the wall clock does") {
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "while :; do :; done"};
    o.limits.cpu_seconds = 1;
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK_FALSE(r.timed_out);
    CHECK_FALSE(r.exited);
    CHECK((r.term_signal == SIGXCPU || r.term_signal == SIGKILL));
    // The limit counts exact run time; rusage samples it per tick and undercounts a little,
    // more so on a loaded machine.
    CHECK(r.cpu_seconds >= 0.5);
    CHECK(r.wall_seconds < o.limits.wall_seconds);
  }

  TEST_CASE("the file-size limit stops a child writing a large file") {
    temp_dir dir;
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "exec head -c 1000000 /dev/zero > big"};
    o.working_dir = dir.path().string();
    o.limits.file_size_bytes = 4096;
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK_FALSE(r.succeeded());
    CHECK(r.term_signal == SIGXFSZ);
    CHECK(fs::file_size(dir.path() / "big") <= 4096);
  }

  TEST_CASE("a memory hog fails to allocate beyond the address-space limit") {
    temp_dir dir;
    std::string exe = compile_c(dir, "hog", R"(
#include <stdlib.h>
#include <string.h>
int main(void) {
  char* p = malloc((size_t)1 << 30);
  if (!p) return 42;
  memset(p, 1, (size_t)1 << 30);
  return 0;
}
)");
    aopt::subprocess_options o;
    o.argv = {exe};
    o.limits.address_space_bytes = 256ull << 20;
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK(r.exited);
    CHECK(r.exit_code == 42);
  }

  TEST_CASE("no core file is written when a child crashes") {
    temp_dir dir;
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "kill -ABRT $$"};
    o.working_dir = dir.path().string();
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK(r.term_signal == SIGABRT);
    CHECK(fs::is_empty(dir.path()));
  }

  TEST_CASE("fork works outside the sandbox and fails with EPERM inside it") {
    temp_dir dir;
    std::string exe = compile_c(dir, "fork_probe", fork_probe_source);
    aopt::subprocess_options o;
    o.argv = {exe};
    o.limits.wall_seconds = 20;
    auto free_run = run_checked(o);
    CHECK(free_run.exit_code == 0);
    CHECK(free_run.stdout_text == "fork ok\n");

    o.sandbox = true;
    auto boxed = run_checked(o);
    CHECK(boxed.exited);
    CHECK_MESSAGE(boxed.exit_code == 10, boxed.stdout_text);
  }

  TEST_CASE("a fork bomb inside the sandbox creates no process and ends") {
    temp_dir dir;
    std::string exe = compile_c(dir, "bomb", R"(
#include <unistd.h>
int main(void) {
  int made = 0;
  for (int i = 0; i < 10000; ++i) if (fork() >= 0) ++made;
  return made == 0 ? 0 : 1;
}
)");
    aopt::subprocess_options o;
    o.argv = {exe};
    o.sandbox = true;
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK(r.exited);
    CHECK(r.exit_code == 0);
  }

  TEST_CASE("threads still work inside the sandbox, sockets do not") {
    temp_dir dir;
    std::string exe = compile_c(dir, "threads_sockets", R"(
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
static void* work(void* arg) { *(int*)arg = 7; return 0; }
int main(void) {
  int value = 0;
  pthread_t t;
  if (pthread_create(&t, 0, work, &value) != 0) return 2;
  pthread_join(t, 0);
  if (value != 7) return 3;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) return 4;
  printf("socket errno=%d\n", errno);
  return errno == EPERM ? 0 : 5;
}
)");
    aopt::subprocess_options o;
    o.argv = {exe};
    o.sandbox = true;
    o.limits.wall_seconds = 20;
    auto r = run_checked(o);
    CHECK_MESSAGE(r.exit_code == 0, r.stdout_text);
    if (!r.network_isolated) MESSAGE("no network namespace here: " << r.notes.at(0));
  }

  TEST_CASE("a cancellation raised while the child runs kills its whole group and says so") {
    aopt::cancellation stop;
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
    o.limits.wall_seconds = 60;
    o.cancel_fd = stop.fd();
    auto child = aopt::subprocess::start(o);
    REQUIRE(child.ok());
    std::thread raiser([&stop] { stop.cancel(); });
    const aopt::subprocess_result r = child->wait();
    raiser.join();
    CHECK(r.cancelled);
    CHECK_FALSE(r.timed_out);
    CHECK_FALSE(r.exited);
    CHECK_FALSE(r.succeeded());
    CHECK(r.wall_seconds < 30);  // not the child's own end, nor the wall-clock limit
    CHECK(r.describe().find("cancelled after") == 0);
  }

  TEST_CASE("a cancellation stays raised for every later child; an unraised one changes nothing") {
    aopt::cancellation stop;
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "echo ran; exit 3"};
    o.cancel_fd = stop.fd();
    auto ran = aopt::run_subprocess(o);
    REQUIRE(ran.ok());
    CHECK_FALSE(ran->cancelled);
    CHECK(ran->exited);
    CHECK(ran->exit_code == 3);
    CHECK(ran->stdout_text == "ran\n");
    CHECK_FALSE(stop.cancelled());

    stop.cancel();
    stop.cancel();  // a second raise is harmless
    CHECK(stop.cancelled());
    o.argv = {"/bin/sleep", "30"};
    for (int i = 0; i < 2; ++i) {
      auto r = aopt::run_subprocess(o);
      REQUIRE(r.ok());
      CHECK(r->cancelled);
      CHECK(r->wall_seconds < 30);
    }
  }

  TEST_CASE("a scope left by an exception stops the work started beside it; a released one not") {
    aopt::cancellation stop;
    aopt::subprocess_options o;
    o.argv = {"/bin/sleep", "30"};
    o.cancel_fd = stop.fd();
    std::optional<aopt::result<aopt::subprocess_result>> beside;
    try {
      auto work = std::async(std::launch::async, [&] { beside = aopt::run_subprocess(o); });
      aopt::cancel_on_exit stop_unless_taken(stop);
      throw std::runtime_error("the other work failed");
    } catch (const std::runtime_error&) {
      // The future's destructor waited for the child: it was stopped, not run for 30 s.
    }
    REQUIRE(beside.has_value());
    REQUIRE(beside->ok());
    CHECK((*beside)->cancelled);
    CHECK((*beside)->wall_seconds < 30);

    aopt::cancellation kept;
    {
      aopt::cancel_on_exit stop_unless_taken(kept);
      stop_unless_taken.release();
    }
    CHECK_FALSE(kept.cancelled());
  }

  TEST_CASE("destroying a running subprocess kills and reaps the child") {
    aopt::subprocess_options o;
    o.argv = {"/bin/sleep", "30"};
    pid_t pid = -1;
    {
      auto child = aopt::subprocess::start(o);
      REQUIRE(child.ok());
      pid = child->pid();
      CHECK(::kill(pid, 0) == 0);
    }
    // Reaped by the destructor: the pid no longer names our child.
    CHECK(::kill(pid, 0) == -1);
    CHECK(errno == ESRCH);
  }

  TEST_CASE("a program busy being written runs once its writer closes it, or fails naming why") {
    temp_dir dir;
    const fs::path program = dir.path() / "program";
    fs::copy_file("/bin/true", program);
    fs::permissions(program, fs::perms::owner_all);
    aopt::subprocess_options o;
    o.argv = {program.string()};
    o.limits.wall_seconds = 20;
    // A writer that never lets go: the child gives up after its retries, naming the reason.
    int writer = ::open(program.c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(writer >= 0);
    auto refused = aopt::run_subprocess(o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message().find("Text file busy") != std::string::npos);
    CHECK(refused.error().message().find("execve") != std::string::npos);
    // A writer that closes while the child retries: the program runs.
    std::optional<aopt::result<aopt::subprocess_result>> ran;
    std::atomic<bool> finished{false};
    std::thread runner([&] {
      ran.emplace(aopt::run_subprocess(o));
      finished = true;
    });
    bool seen_retrying = false;
    while (!seen_retrying && !finished) {
      const pid_t child = some_child();
      seen_retrying = child > 0 && sleeping_in_syscall(child);
    }
    ::close(writer);
    runner.join();
    CHECK(seen_retrying);
    REQUIRE(ran.has_value());
    REQUIRE_MESSAGE(ran->ok(), ran->error().to_string());
    CHECK((*ran)->succeeded());
  }
}
