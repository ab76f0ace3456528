// core_memory_pool: a lease starts poisoned whether its buffer is new or handed back by an
// earlier core; leases held at once never share a buffer; a given-back buffer is reused.
#include "npu/sim/runtime/core_memory_pool.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace aopt::sim {
namespace {

bool all_poison(const uint8_t* p, size_t bytes, uint8_t poison) {
  return std::all_of(p, p + bytes, [&](uint8_t b) { return b == poison; });
}

TEST_SUITE("sim") {
  TEST_CASE(
      "core_memory_pool: a lease starts poisoned, also when its buffer served a core before") {
    core_memory_pool pool(4096 + 7, 0x7b);
    const uint8_t* first_address = nullptr;
    {
      core_memory_pool::lease first = pool.acquire();
      first_address = first.get();
      CHECK(all_poison(first.get(), pool.bytes(), 0x7b));
      std::memset(first.get(), 0x11, pool.bytes());  // what a kernel leaves behind
    }
    core_memory_pool::lease second = pool.acquire();
    CHECK(second.get() == first_address);  // handed back, then reused
    CHECK(all_poison(second.get(), pool.bytes(), 0x7b));
  }

  TEST_CASE("core_memory_pool: leases held at once never share a buffer") {
    core_memory_pool pool(1024, 0x5a);
    core_memory_pool::lease a = pool.acquire();
    core_memory_pool::lease b = pool.acquire();
    REQUIRE(a.get() != nullptr);
    REQUIRE(b.get() != nullptr);
    CHECK(a.get() != b.get());
    std::memset(a.get(), 0, pool.bytes());
    CHECK(all_poison(b.get(), pool.bytes(), 0x5a));  // a's writes do not reach b
  }

  TEST_CASE("core_memory_pool: a moved lease gives its buffer back once, from its new owner") {
    core_memory_pool pool(256, 0x01);
    const uint8_t* address = nullptr;
    {
      core_memory_pool::lease moved_from = pool.acquire();
      address = moved_from.get();
      core_memory_pool::lease owner = std::move(moved_from);
      CHECK(owner.get() == address);
    }
    core_memory_pool::lease again = pool.acquire();
    core_memory_pool::lease fresh = pool.acquire();
    CHECK(again.get() == address);
    CHECK(fresh.get() != address);  // the buffer was given back once, not twice
  }
}

}  // namespace
}  // namespace aopt::sim
