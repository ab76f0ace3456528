#include "npu/package_cache.hpp"

#include <doctest/doctest.h>

namespace {

std::shared_ptr<const aopt::npu::op_package> package(const std::string& name) {
  aopt::npu::op_package p;
  p.spec.name = name;
  return std::make_shared<const aopt::npu::op_package>(std::move(p));
}

}  // namespace

TEST_CASE("package_cache keeps at most its capacity, evicting the least recently used") {
  aopt::npu::package_cache cache(2);
  cache.insert("h1", package("one"));
  cache.insert("h2", package("two"));
  REQUIRE(cache.find("h1") != nullptr);  // h1 is now the most recently used
  cache.insert("h3", package("three"));  // evicts h2
  CHECK(cache.size() == 2);
  CHECK(cache.evictions() == 1);
  CHECK(cache.find("h2") == nullptr);
  REQUIRE(cache.find("h1") != nullptr);
  CHECK(cache.find("h1")->spec.name == "one");
  REQUIRE(cache.find("h3") != nullptr);
  CHECK(cache.find("h3")->spec.name == "three");
  // h1 was used before h3: a fourth package evicts h1.
  cache.insert("h4", package("four"));
  CHECK(cache.find("h1") == nullptr);
  CHECK(cache.find("h3") != nullptr);
  CHECK(cache.evictions() == 2);
}

TEST_CASE("package_cache replaces a package cached again under its hash without evicting") {
  aopt::npu::package_cache cache(2);
  cache.insert("h1", package("one"));
  cache.insert("h2", package("two"));
  cache.insert("h1", package("one again"));
  CHECK(cache.size() == 2);
  CHECK(cache.evictions() == 0);
  CHECK(cache.find("h1")->spec.name == "one again");
  // h1 became the most recently used by its insert: h2 goes first.
  cache.insert("h3", package("three"));
  CHECK(cache.find("h2") == nullptr);
  CHECK(cache.find("h1") != nullptr);
}

TEST_CASE("package_cache of capacity 0 still keeps the last package") {
  aopt::npu::package_cache cache(0);
  CHECK(cache.capacity() == 1);
  cache.insert("h1", package("one"));
  cache.insert("h2", package("two"));
  CHECK(cache.find("h1") == nullptr);
  CHECK(cache.find("h2") != nullptr);
}
