// The trusted side of shared input sets (input_store.hpp): each set drawn once, sealed so that a
// candidate holding the descriptor cannot change it, and valid while held after eviction.
#include "npu/sim/device/input_store.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <thread>
#include <vector>

#include "npu/sim/runtime/driver_expected.hpp"
#include "npu/sim/runtime/shared_inputs.hpp"

namespace aopt::npu {
namespace {

op_spec op_of(int64_t rows) {
  op_spec op;
  op.name = "store_custom";
  op.seed = 5;
  op.inputs = {tensor_spec{"x", dtype::float32, {rows, 256}, -1.0, 1.0}};
  return op;
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("the input store draws a set once and hands out the drawn bytes") {
    input_store store(64ull << 20);
    const op_spec op = op_of(16);
    auto first = store.find_or_draw(op, 1);
    REQUIRE(first.ok());
    auto again = store.find_or_draw(op, 1);
    REQUIRE(again.ok());
    CHECK(first->get() == again->get());
    CHECK(store.drawn() == 1);
    CHECK(sim::read_shared_inputs((*first)->get(), op) == sim::make_inputs(op, 1));
    // Another set, or the same set of other shapes, is drawn anew.
    REQUIRE(store.find_or_draw(op, 2).ok());
    REQUIRE(store.find_or_draw(op_of(32), 1).ok());
    CHECK(store.drawn() == 3);
  }

  TEST_CASE("evaluations asking for a set together share one draw of it") {
    input_store store(256ull << 20);
    const op_spec op = op_of(4096);  // 4 MiB: long enough to draw that the askers overlap
    std::vector<result<std::shared_ptr<const unique_fd>>> got(4, internal_error("not asked"));
    std::vector<std::thread> askers;
    for (size_t i = 0; i < got.size(); ++i) {
      askers.emplace_back([&, i] { got[i] = store.find_or_draw(op, 0); });
    }
    for (std::thread& t : askers) t.join();
    for (const auto& g : got) {
      REQUIRE(g.ok());
      CHECK(g->get() == got[0]->get());  // one descriptor
    }
    CHECK(store.drawn() == 1);
    CHECK(sim::read_shared_inputs((*got[0])->get(), op) == sim::make_inputs(op, 0));
  }

  TEST_CASE("a shared input set cannot be written, resized or mapped writable") {
    input_store store(64ull << 20);
    auto fd = store.find_or_draw(op_of(16), 0);
    REQUIRE(fd.ok());
    const int raw = (*fd)->get();
    const uint8_t byte = 0x5a;
    CHECK(::pwrite(raw, &byte, 1, 0) == -1);
    CHECK(errno == EPERM);
    CHECK(::ftruncate(raw, 0) == -1);
    CHECK(::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, raw, 0) == MAP_FAILED);
    CHECK(errno == EPERM);
    // The seals themselves are sealed.
    CHECK(::fcntl(raw, F_ADD_SEALS, 0) == -1);
    CHECK((::fcntl(raw, F_GET_SEALS) & F_SEAL_WRITE) != 0);
  }

  TEST_CASE("an evicted input set stays readable for the run that holds it") {
    // Room for one 16-row set (16 KiB) only.
    input_store store(20 << 10);
    const op_spec op = op_of(16);
    auto held = store.find_or_draw(op, 0);
    REQUIRE(held.ok());
    REQUIRE(store.find_or_draw(op, 1).ok());  // evicts set 0
    CHECK(sim::read_shared_inputs((*held)->get(), op) == sim::make_inputs(op, 0));
    REQUIRE(store.find_or_draw(op, 0).ok());  // drawn again
    CHECK(store.drawn() == 3);
  }
}

}  // namespace aopt::npu
