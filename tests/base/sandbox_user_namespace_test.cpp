// The sandbox of a process that is not root (issue 30 item 2): its children start in a user
// namespace of their own. The tests run as root, so the test drops a forked child of its own to
// an unprivileged uid first (a real setresuid, as a daemon started by a user would run); that
// child is "aopt": it owns a file and a scratch directory and starts sandboxed probes, which try
// what a candidate would against its files. Each probe also runs unconfined on a file of its
// own, which proves the probe itself works.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "support/c_program.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// Not root, and no name on the system: an identity that is only aopt's in this test.
constexpr uid_t aopt_uid = 4242;
constexpr gid_t aopt_gid = 4242;

// argv[1]: what to try, argv[2]: the file to try it on. Prints "<action> <errno>" (0: it
// worked) unless the sandbox kills it first.
const char* probe_source = R"(
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char** argv) {
  int rc = -1;
  if (strcmp(argv[1], "id") == 0) {
    printf("uid %d euid %d gid %d\n", (int)getuid(), (int)geteuid(), (int)getgid());
    return 0;
  }
  if (strcmp(argv[1], "write") == 0) {
    int fd = open(argv[2], O_WRONLY | O_APPEND);
    rc = fd < 0 ? -1 : (int)write(fd, "x", 1) == 1 ? 0 : -1;
  } else if (strcmp(argv[1], "chmod") == 0) {
    rc = chmod(argv[2], 0777);
  } else if (strcmp(argv[1], "utimes") == 0) {
    rc = utimensat(AT_FDCWD, argv[2], NULL, 0);
  }
  printf("%s %d\n", argv[1], rc == 0 ? 0 : errno);
  return 0;
}
)";

struct probe_run {
  std::string action;
  bool sandbox = false;
};

// In the forked child, as aopt_uid: runs each probe and writes one JSON line per run to `out`.
[[noreturn]] void run_as_unprivileged(int out, const std::string& exe, const fs::path& scratch,
                                      const fs::path& target, const fs::path& own) {
  if (::setgroups(0, nullptr) != 0 || ::setresgid(aopt_gid, aopt_gid, aopt_gid) != 0 ||
      ::setresuid(aopt_uid, aopt_uid, aopt_uid) != 0 || ::geteuid() != aopt_uid) {
    ::_exit(2);
  }
  const probe_run runs[] = {{"id", true},     {"write", true},  {"chmod", true},   {"utimes", true},
                            {"write", false}, {"chmod", false}, {"utimes", false}, {"id", false}};
  for (const probe_run& p : runs) {
    aopt::subprocess_options o;
    o.argv = {exe, p.action, (p.sandbox ? target : own).string()};
    o.working_dir = scratch.string();
    o.limits.wall_seconds = 20;
    o.sandbox = p.sandbox;
    auto r = aopt::run_subprocess(o);
    nlohmann::json j = {{"action", p.action}, {"sandbox", p.sandbox}, {"started", r.ok()}};
    if (r.ok()) {
      j["exited"] = r->exited;
      j["signal"] = r->term_signal;
      j["stdout"] = r->stdout_text;
      j["own_user_namespace"] = r->own_user_namespace;
      j["network_isolated"] = r->network_isolated;
      j["filesystem_confined"] = r->filesystem_confined;
      j["notes"] = r->notes;
    } else {
      j["error"] = r.error().to_string();
    }
    const std::string line = j.dump() + "\n";
    if (::write(out, line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(3);
  }
  ::_exit(0);
}

}  // namespace

TEST_SUITE("base") {
  TEST_CASE(
      "sandbox, aopt not root: a candidate in its own user namespace cannot change aopt's "
      "files") {
    REQUIRE_MESSAGE(::geteuid() == 0, "the test drops from root to an unprivileged uid");
    aopt::testing::temp_dir dir;
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
    fs::create_directory(dir.path() / "bin");
    const std::string exe =
        aopt::testing::compile_c_program(dir.path() / "bin", "probe", probe_source);
    // aopt's home: a file it owns, a file for the unconfined probes, and a scratch directory.
    const fs::path home = dir.path() / "aopt";
    const fs::path target = home / "results.txt";
    const fs::path own = home / "control.txt";
    const fs::path scratch = home / "scratch";
    fs::create_directories(scratch);
    std::ofstream(target) << "aopt's";
    std::ofstream(own) << "control";
    for (const fs::path& p : {home, scratch, target, own}) {
      REQUIRE(::chown(p.c_str(), aopt_uid, aopt_gid) == 0);
    }
    REQUIRE(::chmod(target.c_str(), 0644) == 0);
    REQUIRE(::chmod(own.c_str(), 0644) == 0);
    struct stat before {};
    REQUIRE(::stat(target.c_str(), &before) == 0);

    int pipe_fds[2];
    REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::close(pipe_fds[0]);
      run_as_unprivileged(pipe_fds[1], exe, scratch, target, own);
    }
    ::close(pipe_fds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      REQUIRE(n > 0);
      text.append(buffer, static_cast<size_t>(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "status " << status);

    std::istringstream lines(text);
    int seen = 0;
    for (std::string line; std::getline(lines, line);) {
      const auto j = nlohmann::json::parse(line);
      const std::string action = j.at("action");
      const bool boxed = j.at("sandbox");
      CAPTURE(line);
      ++seen;
      REQUIRE(j.at("started").get<bool>());
      const std::string out = j.at("stdout");
      if (!boxed) {
        // Unconfined, aopt's uid owns its file: every probe works.
        CHECK(j.at("exited").get<bool>());
        if (action == "id") {
          CHECK(out == "uid 4242 euid 4242 gid 4242\n");
        } else {
          CHECK(out == action + " 0\n");
        }
        continue;
      }
      // The sandboxed child is in a user namespace of its own, without privilege, and has its
      // own network namespace (which it could not get without one).
      CHECK(j.at("own_user_namespace").get<bool>());
      CHECK(j.at("network_isolated").get<bool>());
      CHECK(j.at("filesystem_confined").get<bool>());
      if (action == "id") {
        // No id of aopt's is mapped inside: it sees itself as the overflow id.
        CHECK(out == "uid 65534 euid 65534 gid 65534\n");
      } else if (action == "write") {
        CHECK(j.at("exited").get<bool>());
        CHECK(out == "write " + std::to_string(EACCES) + "\n");
      } else {
        // chmod and utimensat on a file outside its sandbox are killed by the allow-list.
        CHECK_FALSE(j.at("exited").get<bool>());
        CHECK(j.at("signal").get<int>() == SIGSYS);
        CHECK(out.empty());
      }
    }
    CHECK(seen == 8);
    struct stat after {};
    REQUIRE(::stat(target.c_str(), &after) == 0);
    CHECK(after.st_mode == before.st_mode);
    CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
    CHECK(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    std::ifstream in(target);
    std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(contents == "aopt's");
  }
}
