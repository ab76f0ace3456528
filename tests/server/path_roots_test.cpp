#include <doctest/doctest.h>

#include <fstream>

#include "server/path_roots.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

TEST_CASE("path_roots confines paths to the roots after resolving .. and links") {
  aopt::testing::temp_dir dir;
  fs::create_directories(dir.path() / "root" / "ops" / "a");
  fs::create_directories(dir.path() / "outside");
  fs::create_directory_symlink(dir.path() / "outside", dir.path() / "root" / "escape");
  fs::create_directories(dir.path() / "rootless");
  const aopt::server::path_roots roots({dir.path() / "root"});

  auto inside = roots.confine(dir.path() / "root" / "ops" / "a");
  REQUIRE(inside.ok());
  CHECK(*inside == fs::canonical(dir.path() / "root" / "ops" / "a"));
  CHECK(roots.confine(dir.path() / "root" / "ops" / ".." / "ops").ok());
  CHECK(!roots.confine(dir.path() / "root" / ".." / "outside").ok());
  CHECK(!roots.confine(dir.path() / "root" / "escape").ok());
  // A sibling whose name starts with the root's name is not inside it.
  CHECK(!roots.confine(dir.path() / "rootless").ok());
  CHECK(!roots.confine("/etc/passwd").ok());
  CHECK(!aopt::server::path_roots({}).confine(dir.path() / "root").ok());
}
