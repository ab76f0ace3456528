// One object cache for the test processes that evaluate the same packages (the corpus checks, the
// latency pins, the wild set, the bank and rewinder tests, the checker's honest operator): the
// cache is content-addressed and safe to share between processes (npu/sim/device/
// compile_cache.hpp), so a package's units compile once per test run instead of once per test.
// Tests that count the cache's hits and misses keep a cache of their own.
#pragma once

#include <filesystem>

namespace aopt::testing {

inline std::filesystem::path shared_object_cache() {
  return std::filesystem::temp_directory_path() / "aopt-test-objcache";
}

}  // namespace aopt::testing
