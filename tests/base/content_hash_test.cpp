#include "base/content_hash.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

TEST_SUITE("base") {
  TEST_CASE("content_hash gives 32 lowercase hex digits that depend on every part") {
    std::string h = aopt::content_hash({"profile", "op", "tiling", "kernel"});
    CHECK(h.size() == 32);
    CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(h == aopt::content_hash({"profile", "op", "tiling", "kernel"}));
    CHECK(h != aopt::content_hash({"profile", "op", "tiling", "kernel "}));
    CHECK(h != aopt::content_hash({"profile", "op", "kernel", "tiling"}));
  }

  TEST_CASE("content_hash frames parts, so moving a boundary changes the hash") {
    CHECK(aopt::content_hash({"ab", "c"}) != aopt::content_hash({"a", "bc"}));
    CHECK(aopt::content_hash({"abc"}) != aopt::content_hash({"abc", ""}));
    CHECK(aopt::content_hash({}) != aopt::content_hash({""}));
  }

  TEST_CASE("content_hash is stable across builds (persistent cache keys)") {
    // Pinned values: a change here silently invalidates every stored cache key.
    CHECK(aopt::content_hash({}) == "99aa06d3014798d86001c324468d497f");
    CHECK(aopt::content_hash({"aopt"}) == "c25000046766fc8e0b5e63a1ebc3f5ba");
  }

  TEST_CASE("content_hasher gives the same hash as content_hash and can continue after hex") {
    aopt::content_hasher h;
    h.add("a").add("b");
    CHECK(h.hex() == aopt::content_hash({"a", "b"}));
    h.add("c");
    CHECK(h.hex() == aopt::content_hash(std::vector<std::string>{"a", "b", "c"}));
  }
}
