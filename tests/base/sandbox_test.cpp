// The sandbox of untrusted children, tried with real processes doing what an attacker would:
// each probe is also run outside the sandbox where that proves the probe itself works.
#include "base/sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "base/subprocess.hpp"
#include "support/c_program.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

aopt::subprocess_result run(const aopt::subprocess_options& options) {
  auto r = aopt::run_subprocess(options);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

// A shell script run the way a compiler driver is: sandboxed, allowed to create processes.
aopt::subprocess_options compiler_like(const std::string& script, double wall_seconds) {
  aopt::subprocess_options o;
  o.argv = {"/bin/sh", "-c", script};
  o.limits.wall_seconds = wall_seconds;
  o.sandbox = true;
  o.sandbox_allows_processes = true;
  return o;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// argv[1]: what to try on the parent (argv[2] = its pid).
const char* reach_parent_source = R"(
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
int main(int argc, char** argv) {
  pid_t parent = (pid_t)atoi(argv[2]);
  if (strcmp(argv[1], "ptrace") == 0) {
    long rc = ptrace(PTRACE_ATTACH, parent, 0, 0);
    printf("ptrace returned %ld\n", rc);
    if (rc == 0) ptrace(PTRACE_DETACH, parent, 0, 0);
  } else {
    static char buffer[16];
    struct iovec local = {buffer, sizeof buffer}, remote = {(void*)&main, sizeof buffer};
    printf("process_vm_readv returned %ld\n", (long)process_vm_readv(parent, &local, 1, &remote, 1, 0));
  }
  return 0;
}
)";

// argv[1]: the parent's pid, argv[2]: a file outside the sandbox's directories. Prints one
// "<probe> <errno>" line per attempt (0: it worked).
const char* file_probe_source = R"(
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static void probe(const char* name, int fd) {
  printf("%s %d\n", name, fd >= 0 ? 0 : errno);
  if (fd >= 0) close(fd);
}
int main(int argc, char** argv) {
  char path[256];
  snprintf(path, sizeof path, "/proc/%s/mem", argv[1]);
  probe("parent_mem_write", open(path, O_RDWR));
  snprintf(path, sizeof path, "/proc/%s/environ", argv[1]);
  probe("parent_environ", open(path, O_RDONLY));
  probe("outside_read", open(argv[2], O_RDONLY));
  probe("outside_truncate", open(argv[2], O_WRONLY | O_TRUNC));
  probe("etc_passwd", open("/etc/passwd", O_RDONLY));
  probe("thp_mode", open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY));
  probe("thp_mode_write", open("/sys/kernel/mm/transparent_hugepage/enabled", O_WRONLY));
  probe("thp_defrag", open("/sys/kernel/mm/transparent_hugepage/defrag", O_RDONLY));
  probe("own_dir_write", open("own.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600));
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct caps[2];
  syscall(SYS_capget, &header, caps);
  printf("capabilities %u\n", caps[0].effective | caps[1].effective);
  return 0;
}
)";

// "<probe> <errno>" lines as a lookup.
int probe_result(const std::string& output, const std::string& name) {
  std::istringstream in(output);
  for (std::string probe; in >> probe;) {
    long value = -1;
    in >> value;
    if (probe == name) return static_cast<int>(value);
  }
  FAIL("no probe " << name << " in: " << output);
  return -1;
}

// Starts `options` from a separate supervisor process, waits until the child tree writes a
// byte to descriptor 3, kills the supervisor with SIGKILL and returns whether every process
// holding descriptor 3 (the whole tree) ended within 30 s.
bool tree_dies_with_its_supervisor(aopt::subprocess_options options) {
  int sync[2];
  REQUIRE(::pipe2(sync, O_CLOEXEC) == 0);
  pid_t supervisor = ::fork();
  REQUIRE(supervisor >= 0);
  if (supervisor == 0) {
    options.pass_fds = {sync[1]};
    auto child = aopt::subprocess::start(options);
    if (!child.ok()) ::_exit(3);
    ::close(sync[1]);  // from now on only the child tree holds the write end
    child->wait();
    ::_exit(0);
  }
  ::close(sync[1]);
  pollfd p{sync[0], POLLIN, 0};
  char byte = 0;
  REQUIRE(::poll(&p, 1, 30000) == 1);
  REQUIRE(::read(sync[0], &byte, 1) == 1);  // the tree is up
  REQUIRE(::kill(supervisor, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(supervisor, &status, 0) == supervisor);
  CHECK(WIFSIGNALED(status));
  // End of file once the last holder of the write end is gone.
  bool ended = false;
  while (!ended && ::poll(&p, 1, 30000) == 1) {
    ssize_t n = ::read(sync[0], &byte, 1);
    if (n <= 0) ended = n == 0;
  }
  ::close(sync[0]);
  return ended;
}

}  // namespace

TEST_SUITE("base") {
  TEST_CASE("a sandboxed child that ptraces its parent or reads its memory dies of SIGSYS") {
    aopt::testing::temp_dir dir;
    std::string exe = aopt::testing::compile_c_program(dir.path(), "reach", reach_parent_source);
    const std::string parent = std::to_string(::getpid());
    for (const char* how : {"ptrace", "process_vm_readv"}) {
      CAPTURE(how);
      aopt::subprocess_options o;
      o.argv = {exe, how, parent};
      o.limits.wall_seconds = 20;
      o.sandbox = true;
      auto boxed = run(o);
      CHECK_FALSE(boxed.exited);
      CHECK_MESSAGE(boxed.term_signal == SIGSYS, boxed.describe() << " " << boxed.stdout_text);
      CHECK(boxed.stdout_text.empty());
    }
  }

  TEST_CASE("a sandboxed child reaches neither its parent's /proc files nor files outside") {
    aopt::testing::temp_dir dir;
    // The program's own directory is readable in the sandbox: keep it apart.
    fs::create_directory(dir.path() / "bin");
    std::string exe =
        aopt::testing::compile_c_program(dir.path() / "bin", "files", file_probe_source);
    fs::create_directory(dir.path() / "work");
    fs::create_directory(dir.path() / "shared");
    const fs::path outside = dir.path() / "shared" / "object.o";
    std::ofstream(outside) << "shared object";

    aopt::subprocess_options o;
    o.argv = {exe, std::to_string(::getpid()), outside.string()};
    o.working_dir = (dir.path() / "work").string();
    o.limits.wall_seconds = 20;
    // Unconfined, the probes work (this machine runs the tests as root or as the file owner).
    auto free_run = run(o);
    REQUIRE_MESSAGE(free_run.succeeded(), free_run.stderr_text);
    CHECK(probe_result(free_run.stdout_text, "outside_read") == 0);
    std::ofstream(outside) << "shared object";

    o.sandbox = true;
    auto boxed = run(o);
    REQUIRE_MESSAGE(boxed.succeeded(), boxed.describe() << boxed.stderr_text);
    REQUIRE_MESSAGE(boxed.filesystem_confined, "no Landlock here");
    INFO(boxed.stdout_text);
    CHECK(probe_result(boxed.stdout_text, "parent_mem_write") != 0);
    CHECK(probe_result(boxed.stdout_text, "parent_environ") != 0);
    CHECK(probe_result(boxed.stdout_text, "outside_read") != 0);
    CHECK(probe_result(boxed.stdout_text, "outside_truncate") != 0);
    CHECK(probe_result(boxed.stdout_text, "etc_passwd") != 0);
    // The huge-page mode is readable, for glibc's malloc (sandbox.cpp); nothing beside it is,
    // and it is not writable.
    const fs::path thp = "/sys/kernel/mm/transparent_hugepage";
    if (fs::exists(thp / "enabled")) CHECK(probe_result(boxed.stdout_text, "thp_mode") == 0);
    CHECK(probe_result(boxed.stdout_text, "thp_mode_write") != 0);
    CHECK(probe_result(boxed.stdout_text, "thp_defrag") != 0);
    CHECK(probe_result(boxed.stdout_text, "own_dir_write") == 0);
    CHECK(probe_result(boxed.stdout_text, "capabilities") == 0);
    CHECK(slurp(outside) == "shared object");
    // The supervisor learns what was refused, by kind.
    auto denied = [&](const std::string& kind, const std::string& path) {
      for (const auto& d : boxed.denied_access) {
        if (d.kind == kind && d.path == path) return true;
      }
      return false;
    };
    const std::string parent = "/proc/" + std::to_string(::getpid());
    CHECK(denied("process", parent + "/mem"));
    CHECK(denied("process", parent + "/environ"));
    CHECK(denied("write", fs::canonical(outside).string()));
    CHECK(denied("read", fs::canonical(outside).string()));
    CHECK(denied("read", "/etc/passwd"));
    if (fs::exists(thp / "defrag")) {
      CHECK(denied("write", (thp / "enabled").string()));
      CHECK(denied("read", (thp / "defrag").string()));
      CHECK(boxed.denied_access.size() == 7);
    }
  }

  TEST_CASE("a secret in a child's output comes back redacted, also when cut off inside it") {
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "echo key=sk-live-0123456789; printf 'tok=bearer-abcdefgh' >&2"};
    o.redact = {"sk-live-0123456789", "bearer-abcdefghijklmnop"};
    o.limits.wall_seconds = 20;
    auto r = run(o);
    CHECK(r.stdout_text == "key=[redacted]\n");
    CHECK(r.stderr_text == "tok=[redacted]");
  }

  TEST_CASE("passed descriptors arrive in the child as 3, 4, ... and nothing else leaks") {
    int a[2], b[2];
    REQUIRE(::pipe2(a, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(b, O_CLOEXEC) == 0);
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "echo first >&3; echo second >&4; ls /proc/self/fd | wc -l"};
    o.pass_fds = {a[1], b[1]};
    o.limits.wall_seconds = 20;
    auto r = run(o);
    ::close(a[1]);
    ::close(b[1]);
    CHECK(r.succeeded());
    char buffer[64] = {};
    CHECK(::read(a[0], buffer, sizeof buffer) == 6);
    CHECK(std::string(buffer) == "first\n");
    CHECK(::read(b[0], buffer, sizeof buffer) == 7);
    CHECK(std::string(buffer, 7) == "second\n");
    // 0-4, plus the descriptor ls reads the directory with.
    CHECK(r.stdout_text == "6\n");
    ::close(a[0]);
    ::close(b[0]);
  }

  // The second descriptor is numbered 3 itself: placing the first at 3 before moving the second
  // away would hand the child the first one twice.
  TEST_CASE("a passed descriptor numbered where an earlier one lands still reaches the child") {
    int a[2], b[2];
    REQUIRE(::pipe2(a, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(b, O_CLOEXEC) == 0);
    const int saved = ::fcntl(3, F_DUPFD_CLOEXEC, 100);  // whatever this process keeps at 3
    REQUIRE(::dup3(b[1], 3, O_CLOEXEC) == 3);
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "echo first >&3; echo second >&4"};
    o.pass_fds = {a[1], 3};
    o.limits.wall_seconds = 20;
    auto r = run(o);
    if (saved >= 0) {
      ::dup3(saved, 3, O_CLOEXEC);
      ::close(saved);
    } else {
      ::close(3);
    }
    ::close(a[1]);
    ::close(b[1]);
    CHECK(r.succeeded());
    char buffer[64] = {};
    CHECK(::read(a[0], buffer, sizeof buffer) == 6);
    CHECK(std::string(buffer, 6) == "first\n");
    CHECK(::read(b[0], buffer, sizeof buffer) == 7);
    CHECK(std::string(buffer, 7) == "second\n");
    ::close(a[0]);
    ::close(b[0]);
  }

  TEST_CASE("more descriptors than a child can be passed are refused") {
    aopt::subprocess_options o;
    o.argv = {"/bin/true"};
    o.pass_fds.assign(aopt::max_pass_fds + 1, 1);
    auto started = aopt::subprocess::start(o);
    REQUIRE_FALSE(started.ok());
    CHECK(started.error().message().find("65 descriptors to pass; at most 64") !=
          std::string::npos);
  }

  TEST_CASE("kill -9 of the supervisor kills its child: a single program") {
    aopt::subprocess_options o;
    o.argv = {"/bin/sh", "-c", "printf x >&3; exec sleep 1000"};
    o.limits.wall_seconds = 120;
    CHECK(tree_dies_with_its_supervisor(o));
  }

  TEST_CASE("kill -9 of the supervisor kills a sandboxed compiler-like tree, helpers included") {
    CHECK(tree_dies_with_its_supervisor(
        compiler_like("sleep 1000 & printf x >&3; wait", /*wall_seconds=*/120)));
  }

  TEST_CASE("a sandboxed compiler-like program is the init of its own PID namespace") {
    auto r = run(compiler_like("echo $$", /*wall_seconds=*/60));
    CHECK(r.succeeded());
    bool refused = false;
    for (const std::string& note : r.notes) {
      refused = refused || note.find("no PID namespace") != std::string::npos;
    }
    // Where the kernel refuses a new PID namespace, the note says so and the program runs
    // without one; here (root, or CAP_SYS_ADMIN) it must be pid 1.
    if (!refused) CHECK(r.stdout_text == "1\n");
  }

  TEST_CASE("a sandboxed compiler-like program may fork and its helpers end with it") {
    // The background sleep would outlive sh, which exits at once.
    auto r = run(compiler_like("sleep 1000 & echo started", /*wall_seconds=*/60));
    CHECK(r.succeeded());
    CHECK(r.stdout_text == "started\n");
    CHECK_FALSE(r.timed_out);
    CHECK(r.wall_seconds < 30);
  }
}
