// Nothing outlives its supervisor: `kill -9` of a real `aopt run` whose baseline candidate
// never returns leaves no candidate process behind, and the next device start sweeps the
// scratch directory the killed run could not remove.
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// The processes whose working directory is beneath `dir` (candidates run in their scratch
// directory under the work dir).
std::vector<pid_t> processes_working_in(const fs::path& dir) {
  std::vector<pid_t> found;
  const std::string prefix = fs::weakly_canonical(dir).string() + "/";
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec;
    fs::path cwd = fs::read_symlink(entry.path() / "cwd", ec);
    if (!ec && cwd.string().rfind(prefix, 0) == 0) found.push_back(std::stoi(name));
  }
  return found;
}

// Whether process `pid` ends within `seconds` (pidfd: woken by its exit, not by polling).
bool ends_within(pid_t pid, int seconds) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // already gone
  pollfd p{fd, POLLIN, 0};
  bool ended = ::poll(&p, 1, seconds * 1000) == 1;
  ::close(fd);
  return ended;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("sandbox: kill -9 of aopt run leaves no candidate behind; the scratch is swept") {
    aopt::testing::temp_dir dir;
    const fs::path work = dir.path() / "work";
    aopt::subprocess_options o;
    o.argv = {AOPT_BINARY,
              "run",
              (fs::path(AOPT_TEST_DATA_DIR) / "ops" / "add_spin").string(),
              "--db",
              (dir.path() / "db").string(),
              "--report",
              (dir.path() / "reports").string(),
              "--budget",
              "1",
              "--set",
              "device.work_dir=" + work.string(),
              "--set",
              "device.timeout_s=600"};
    o.limits.wall_seconds = 300;
    auto aopt_run = aopt::subprocess::start(o);
    REQUIRE_MESSAGE(aopt_run.ok(), aopt_run.error().to_string());

    // The marker: a process running in a scratch dir under the work dir, which is the
    // candidate once the compile is done (the compiler is gone by then).
    std::vector<pid_t> candidates;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    while (candidates.empty() && std::chrono::steady_clock::now() < deadline) {
      for (pid_t pid : processes_working_in(work)) {
        std::error_code ec;
        if (fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).filename() ==
            "candidate") {
          candidates.push_back(pid);
        }
      }
      if (candidates.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE_MESSAGE(!candidates.empty(), "no candidate process appeared");

    REQUIRE(::kill(aopt_run->pid(), SIGKILL) == 0);
    aopt::subprocess_result killed = aopt_run->wait();
    CHECK(killed.term_signal == SIGKILL);
    for (pid_t pid : candidates) CHECK_MESSAGE(ends_within(pid, 30), "candidate " << pid);
    CHECK(processes_working_in(work).empty());

    // The killed run left its scratch directory; the next device start removes it.
    size_t left = 0;
    for (const auto& e : fs::directory_iterator(work))
      left +=
          e.is_directory() && e.path().filename() != "objcache" && e.path().filename() != "screen";
    CHECK(left == 1);
    CHECK(aopt::scratch_dir::sweep(work) == 1);
  }
}
