#include "base/scratch_dir.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/descriptor_exhaustion.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// Creates a scratch dir under `parent` in a child process that then dies of SIGKILL, as a run
// killed with `kill -9` does; returns the directory it left.
fs::path scratch_of_a_killed_process(const fs::path& parent) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    auto dir = aopt::scratch_dir::create(parent, "op-");
    if (!dir.ok()) ::_exit(3);
    std::string path = dir->path().string();
    if (::write(pipe_fds[1], path.data(), path.size()) < 0) ::_exit(4);
    ::raise(SIGKILL);
  }
  ::close(pipe_fds[1]);
  char buffer[4096];
  ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(n > 0);
  return fs::path(std::string(buffer, static_cast<size_t>(n)));
}

}  // namespace

TEST_SUITE("base") {
  TEST_CASE("sweep removes what dead processes left and nothing that lives or was kept") {
    aopt::testing::temp_dir parent;
    fs::path dead = scratch_of_a_killed_process(parent.path());
    REQUIRE(fs::is_directory(dead));
    std::ofstream(dead / "candidate.cpp") << "int x;";
    auto live = aopt::scratch_dir::create(parent.path(), "op-");
    REQUIRE(live.ok());
    auto kept = aopt::scratch_dir::create(parent.path(), "op-");
    REQUIRE(kept.ok());
    kept->keep();
    fs::create_directory(parent.path() / "objcache");

    CHECK(aopt::scratch_dir::sweep(parent.path()) == 1);
    CHECK_FALSE(fs::exists(dead));
    CHECK(fs::is_directory(live->path()));
    CHECK(fs::is_directory(kept->path()));
    CHECK(fs::is_directory(parent.path() / "objcache"));
    // Only the live directory's owner file is left beside the directories.
    size_t owner_files = 0;
    for (const auto& e : fs::directory_iterator(parent.path())) {
      owner_files += e.path().filename().string().rfind(".op-", 0) == 0;
    }
    CHECK(owner_files == 1);
    CHECK(aopt::scratch_dir::sweep(parent.path()) == 0);
    fs::remove_all(kept->path());
  }

  TEST_CASE("a scratch dir leaves nothing behind when destroyed") {
    aopt::testing::temp_dir parent;
    { auto dir = aopt::scratch_dir::create(parent.path(), "op-"); }
    CHECK(fs::is_empty(parent.path()));
  }

  TEST_CASE("a scratch dir its owner cannot use is a failed precondition, not the candidate's") {
    aopt::testing::temp_dir parent;
    auto dir = aopt::scratch_dir::create(parent.path(), "op-");
    REQUIRE(dir.ok());
    CHECK(aopt::check_scratch_usable(dir->path()).ok());
    fs::permissions(dir->path(), fs::perms::none);
    aopt::status st = aopt::check_scratch_usable(dir->path());
    CHECK(st.code() == aopt::status_code::failed_precondition);
    CHECK(st.message().find(dir->path().string()) != std::string::npos);
    fs::permissions(dir->path(), fs::perms::owner_all);
    fs::remove_all(dir->path() / "missing");
    CHECK(aopt::check_scratch_usable(dir->path() / "missing").code() ==
          aopt::status_code::internal);
  }

  TEST_CASE("out of descriptors, creating or checking a scratch dir is resource_exhausted") {
    aopt::testing::temp_dir parent;
    auto dir = aopt::scratch_dir::create(parent.path(), "op-");
    REQUIRE(dir.ok());
    {
      aopt::testing::descriptor_exhaustion limit(2);
      aopt::status st = aopt::check_scratch_usable(dir->path());
      CHECK(st.code() == aopt::status_code::resource_exhausted);
      CHECK(st.message().find("open") != std::string::npos);
    }
    {
      aopt::testing::descriptor_exhaustion limit(0);
      auto none = aopt::scratch_dir::create(parent.path(), "op-");
      REQUIRE_FALSE(none.ok());
      CHECK(none.error().code() == aopt::status_code::resource_exhausted);
    }
  }
}
