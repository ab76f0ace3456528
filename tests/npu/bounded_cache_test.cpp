#include "npu/sim/device/bounded_cache.hpp"

#include <doctest/doctest.h>

#include <string>

namespace aopt::npu {

TEST_SUITE("npu") {
  TEST_CASE("a bounded cache evicts its oldest entries until a new one fits") {
    bounded_cache<std::string> cache(10);
    cache.put("a", "first", 4);
    cache.put("b", "second", 4);
    REQUIRE(cache.find("a") != nullptr);
    CHECK(*cache.find("a") == "first");
    cache.put("c", "third", 6);  // 14 bytes: "a" goes, "b" (4) and "c" (6) fit
    CHECK(cache.find("a") == nullptr);
    REQUIRE(cache.find("b") != nullptr);
    REQUIRE(cache.find("c") != nullptr);
    CHECK(*cache.find("c") == "third");
  }

  TEST_CASE("a bounded cache keeps the first value of a key and refuses one larger than itself") {
    bounded_cache<std::string> cache(10);
    cache.put("a", "first", 4);
    cache.put("a", "again", 4);
    CHECK(*cache.find("a") == "first");
    cache.put("big", "too large", 11);  // refused without evicting anything
    CHECK(cache.find("big") == nullptr);
    CHECK(cache.find("a") != nullptr);
  }
}

}  // namespace aopt::npu
