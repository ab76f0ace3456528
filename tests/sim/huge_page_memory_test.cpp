// Fresh memory for the simulator's large buffers (huge_page_memory.hpp), the arena that keeps the
// data of traced GM writes (byte_arena.hpp), and reading a whole descriptor into memory
// (read_mapping.hpp): the bytes are the same whatever pages back them.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "base/unique_fd.hpp"
#include "npu/sim/runtime/byte_arena.hpp"
#include "npu/sim/runtime/huge_page_memory.hpp"
#include "npu/sim/runtime/read_mapping.hpp"

namespace aopt::sim {
namespace {

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("huge-page memory is zeroed and writable, aligned to 2 MiB when large") {
    huge_page_memory empty;
    CHECK(empty.data() == nullptr);
    CHECK(huge_page_memory(0).data() == nullptr);

    huge_page_memory small(5000);
    REQUIRE(small.data() != nullptr);
    CHECK(small.size() == 5000);
    CHECK(all_zero(small.data(), small.size()));
    std::memset(small.data(), 0xab, small.size());

    const size_t large_bytes = (size_t{5} << 20) + 123;
    huge_page_memory large(large_bytes);
    REQUIRE(large.data() != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(large.data()) % huge_page_memory::huge_page_bytes == 0);
    CHECK(all_zero(large.data(), large_bytes));
    large.data()[large_bytes - 1] = 7;

    // Moving hands the mapping over; the source holds nothing.
    uint8_t* const at = large.data();
    huge_page_memory moved(std::move(large));
    CHECK(moved.data() == at);
    CHECK(moved.data()[large_bytes - 1] == 7);
    CHECK(large.data() == nullptr);  // NOLINT(bugprone-use-after-move): its documented state
    small = std::move(moved);
    CHECK(small.data() == at);
    CHECK(small.size() == large_bytes);
  }

  TEST_CASE("the write arena copies runs back to back and extends only adjacent blocks") {
    std::vector<uint8_t> gm(4096);
    std::iota(gm.begin(), gm.end(), 0);
    byte_block first, second, apart;
    {
      byte_arena arena;
      // Three runs of 4 bytes, one every 16: the bytes at 0..3, 16..19, 32..35.
      first = arena.copy_runs(gm.data(), 16, 4, 3);
      REQUIRE(first.size() == 12);
      CHECK(std::vector<uint8_t>(first.begin(), first.end()) ==
            std::vector<uint8_t>{0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35});
      second = arena.copy_runs(gm.data() + 100, 0, 2, 1);
      CHECK(second.begin() == first.end());
      CHECK(byte_arena::extend(first, second));
      CHECK(first.size() == 14);
      CHECK(first[12] == 100);
      CHECK(first[13] == 101);
      // A block that does not start where the other ends is not merged.
      apart = arena.copy_runs(gm.data() + 200, 0, 4, 1);
      CHECK_FALSE(byte_arena::extend(second, byte_block{1, 2}));
      CHECK_FALSE(byte_arena::extend(first, byte_block::view(gm.data(), 4)));
      // A run larger than any chunk gets a chunk of its own.
      const std::vector<uint8_t> big(byte_arena::largest_chunk_bytes + 1, 9);
      const byte_block whole = arena.copy_runs(big.data(), 0, static_cast<uint32_t>(big.size()), 1);
      CHECK(whole == byte_block(big));
      CHECK_FALSE(byte_arena::extend(apart, whole));
    }
    // The blocks keep their chunk alive after the arena is gone, and changing one copies it.
    gm.assign(gm.size(), 0);
    CHECK(first[4] == 16);
    CHECK(apart[0] == 200);
    byte_block changed = first;
    changed.mutable_bytes()[0] = 99;
    CHECK(changed[0] == 99);
    CHECK(first[0] == 0);
    CHECK(changed.holder() == nullptr);
  }

  TEST_CASE("a descriptor read whole holds its bytes, small ones mapped and large ones copied") {
    for (const size_t bytes : {size_t{3000}, (size_t{3} << 20) + 17}) {
      CAPTURE(bytes);
      unique_fd fd(::memfd_create("read-mapping-test", MFD_CLOEXEC));
      REQUIRE(fd.valid());
      std::vector<uint8_t> data(bytes);
      for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);
      REQUIRE(::write(fd.get(), data.data(), bytes) == static_cast<ssize_t>(bytes));
      const read_mapping whole = read_mapping::whole(fd.get());
      REQUIRE(whole.size() == bytes);
      CHECK(std::memcmp(whole.data(), data.data(), bytes) == 0);
      const read_mapping moved(read_mapping::whole(fd.get()));
      CHECK(std::memcmp(moved.data(), data.data(), bytes) == 0);
    }
    CHECK_THROWS_AS(read_mapping(-1, size_t{4} << 20), std::runtime_error);
    CHECK_THROWS_AS(read_mapping(-1, 100), std::runtime_error);
  }
}

}  // namespace aopt::sim
