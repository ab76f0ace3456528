#include "base/file_beneath.hpp"

#include <sys/stat.h>

#include <fstream>

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_SUITE("base") {
  TEST_CASE("read_file_beneath reads files of the folder and its subfolders") {
    aopt::testing::temp_dir tmp;
    write(tmp.path() / "op.json", "{}");
    write(tmp.path() / "op_kernel/add.cpp", "kernel");
    auto top = aopt::read_file_beneath(tmp.path(), "op.json", 100);
    REQUIRE(top.ok());
    CHECK(*top == "{}");
    auto nested = aopt::read_file_beneath(tmp.path(), "op_kernel/add.cpp", 100);
    REQUIRE(nested.ok());
    CHECK(*nested == "kernel");
  }

  TEST_CASE("read_file_beneath refuses a symbolic link out of the folder, naming file and target") {
    aopt::testing::temp_dir tmp;
    write(tmp.path() / "secret", "the secret");
    const fs::path pkg = tmp.path() / "pkg";
    fs::create_directories(pkg / "op_kernel");
    fs::create_symlink(tmp.path() / "secret", pkg / "op_kernel/x.cpp");
    auto r = aopt::read_file_beneath(pkg, "op_kernel/x.cpp", 100);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == aopt::status_code::failed_precondition);
    CHECK(r.error().message().find("op_kernel/x.cpp -> " + (tmp.path() / "secret").string()) !=
          std::string::npos);
    CHECK(r.error().message().find("the secret") == std::string::npos);
  }

  TEST_CASE("read_file_beneath refuses a linked folder on the way and a dangling link") {
    aopt::testing::temp_dir tmp;
    write(tmp.path() / "outside/x.cpp", "outside");
    const fs::path pkg = tmp.path() / "pkg";
    fs::create_directories(pkg);
    fs::create_directory_symlink(tmp.path() / "outside", pkg / "op_kernel");
    fs::create_symlink("does-not-exist", pkg / "dangling.cpp");
    auto via_folder = aopt::read_file_beneath(pkg, "op_kernel/x.cpp", 100);
    REQUIRE_FALSE(via_folder.ok());
    CHECK(via_folder.error().code() == aopt::status_code::failed_precondition);
    auto dangling = aopt::read_file_beneath(pkg, "dangling.cpp", 100);
    REQUIRE_FALSE(dangling.ok());
    CHECK(dangling.error().code() == aopt::status_code::failed_precondition);
  }

  TEST_CASE("read_file_beneath refuses '..', absolute paths, FIFOs and files over the limit") {
    aopt::testing::temp_dir tmp;
    write(tmp.path() / "big.cpp", std::string(101, 'x'));
    REQUIRE(::mkfifo((tmp.path() / "fifo.cpp").c_str(), 0600) == 0);
    for (const char* bad : {"../x", "/etc/passwd", "", "big.cpp", "fifo.cpp"}) {
      CAPTURE(bad);
      auto r = aopt::read_file_beneath(tmp.path(), bad, 100);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code() == aopt::status_code::invalid_argument);
    }
    auto missing = aopt::read_file_beneath(tmp.path(), "nope.cpp", 100);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == aopt::status_code::not_found);
  }
}
