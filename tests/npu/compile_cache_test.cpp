// The object cache shared by every evaluation: what a candidate's scratch dir gets must be a
// private copy, and a damaged entry must never be linked again.
#include "npu/sim/device/compile_cache.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ino_t inode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

const std::string object_bytes = std::string(
                                     "\x7f"
                                     "ELF object",
                                     11) +
                                 std::string(4000, 'o');

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("a fetched object is a private copy: rewriting it leaves the cache intact") {
    aopt::testing::temp_dir dir;
    aopt::npu::compile_cache cache(dir.path() / "objcache");
    std::ofstream(dir.path() / "built.o", std::ios::binary) << object_bytes;
    const std::string key = aopt::npu::compile_cache::key_of({"kernel", "v1"});
    REQUIRE(cache.store(key, dir.path() / "built.o").ok());
    // The compiler's output, hard-linked, would make the entry the candidate's file too.
    std::ofstream(dir.path() / "built.o", std::ios::trunc) << "";

    fs::create_directory(dir.path() / "scratch");
    const fs::path fetched = dir.path() / "scratch" / "kernel.o";
    REQUIRE(cache.fetch(key, fetched));
    CHECK(slurp(fetched) == object_bytes);
    const fs::path entry = dir.path() / "objcache" / (key + ".o");
    CHECK(inode_of(fetched) != inode_of(entry));
    CHECK((fs::status(entry).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read));

    // What an attacking candidate does to its scratch copy.
    fs::permissions(fetched, fs::perms::owner_all);
    std::ofstream(fetched, std::ios::trunc) << "";
    CHECK(fs::file_size(fetched) == 0);
    const fs::path again = dir.path() / "scratch" / "kernel2.o";
    REQUIRE(cache.fetch(key, again));
    CHECK(slurp(again) == object_bytes);
    CHECK(cache.stats().damaged == 0);
  }

  TEST_CASE("a truncated or rewritten cache entry is dropped and recompiled, never linked") {
    aopt::testing::temp_dir dir;
    aopt::npu::compile_cache cache(dir.path() / "objcache");
    std::ofstream(dir.path() / "built.o", std::ios::binary) << object_bytes;
    const std::string key = aopt::npu::compile_cache::key_of({"host", "v1"});
    const fs::path entry = dir.path() / "objcache" / (key + ".o");
    auto damage = [&](const std::string& bytes) {
      REQUIRE(cache.store(key, dir.path() / "built.o").ok());
      fs::permissions(entry, fs::perms::owner_all);
      std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    };

    damage("");  // truncated to nothing
    CHECK_FALSE(cache.fetch(key, dir.path() / "a.o"));
    CHECK_FALSE(fs::exists(entry));
    damage(object_bytes.substr(0, 100));  // truncated mid-object
    CHECK_FALSE(cache.fetch(key, dir.path() / "b.o"));
    std::string forged = slurp(dir.path() / "built.o");
    damage(forged.replace(20, 4, "evil") + std::string(24, '\0'));  // rewritten
    CHECK_FALSE(cache.fetch(key, dir.path() / "c.o"));
    CHECK(cache.stats().damaged == 3);

    // The next store (a recompile) heals it.
    REQUIRE(cache.store(key, dir.path() / "built.o").ok());
    REQUIRE(cache.fetch(key, dir.path() / "d.o"));
    CHECK(slurp(dir.path() / "d.o") == object_bytes);
  }

  TEST_CASE("a blob is kept beside the objects, checked like them, and never counted as one") {
    aopt::testing::temp_dir dir;
    aopt::npu::compile_cache cache(dir.path() / "objcache");
    const std::string key = aopt::npu::compile_cache::key_of({"tables", "v1"});
    CHECK_FALSE(cache.fetch_blob(key).has_value());
    REQUIRE(cache.store_blob(key, "names of the link").ok());
    CHECK(cache.fetch_blob(key).value() == "names of the link");
    const fs::path entry = dir.path() / "objcache" / (key + ".o");
    fs::permissions(entry, fs::perms::owner_all);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << "names of the lie";
    CHECK_FALSE(cache.fetch_blob(key).has_value());  // damaged: dropped
    CHECK_FALSE(fs::exists(entry));
    const auto stats = cache.stats();
    CHECK(stats.hits + stats.misses + stats.stores == 0);
    CHECK(stats.damaged == 1);
  }
}
