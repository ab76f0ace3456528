// Data-race detection over synthetic traces: cross-pipe UB accesses without a happens-before
// path through deps edges, same-pipe program order or a PipeBarrier<PIPE_ALL>.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <string>

#include "npu/sim/runtime/hazard_detector.hpp"
#include "sim/synthetic_trace.hpp"

namespace aopt::sim {
namespace {

using testing::elementwise_options;
using testing::tiled_add_trace;
using testing::trace_builder;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_SUITE("sim") {
  TEST_CASE(
      "an MTE2 write then a V read of the same bytes without synchronisation is a race naming both "
      "calls") {
    trace_builder b;
    b.copy_in(0, 4096);
    b.vector(op_class::vec_simple, "Add", 8192, {0, 4096}, 4096);
    const auto race = find_first_race(b.trace());
    REQUIRE(race.has_value());
    CHECK(race->first_index == 0);
    CHECK(race->second_index == 1);
    CHECK(race->overlap.begin == 0);
    CHECK(race->overlap.end == 4096);
    MESSAGE(race->message);
    CHECK(contains(race->message, "DataCopy (MTE2, #0) writes UB [0, 4096)"));
    CHECK(contains(race->message, "Add (V, #1) reads it"));
    CHECK(contains(race->message, "MTE2_V"));
  }

  TEST_CASE("the same accesses ordered by SetFlag/WaitFlag are not a race") {
    trace_builder b;
    b.copy_in(0, 4096);
    b.wait_flag(pipe::v, b.set_flag(pipe::mte2));
    b.vector(op_class::vec_simple, "Add", 8192, {0, 4096}, 4096);
    CHECK_FALSE(find_first_race(b.trace()).has_value());
  }

  TEST_CASE("a flag ordering only later work of the source pipe does not cover an earlier write") {
    trace_builder b;
    const uint32_t set = b.set_flag(pipe::mte2);
    b.copy_in(0, 4096);  // after the SetFlag: the wait does not cover it
    b.wait_flag(pipe::v, set);
    b.vector(op_class::vec_simple, "Add", 8192, {0, 0}, 4096);
    CHECK(find_first_race(b.trace()).has_value());
  }

  TEST_CASE("accesses on the same pipe are never races") {
    trace_builder b;
    b.vector(op_class::vec_simple, "Add", 0, {4096, 8192}, 4096);
    b.vector(op_class::vec_mul, "Mul", 4096, {0, 0}, 4096);
    b.copy_in(12288, 4096);
    b.copy_in(12288, 4096);
    CHECK_FALSE(find_first_race(b.trace()).has_value());
  }

  TEST_CASE("a PipeBarrier<PIPE_ALL> orders everything before it against everything after it") {
    auto kernel = [](bool barrier) {
      trace_builder b;
      b.copy_in(0, 4096);                                          // MTE2 writes A
      b.vector(op_class::vec_simple, "Adds", 4096, {4096}, 4096);  // V reads and writes B
      if (barrier) b.pipe_all_barrier();
      b.vector(op_class::vec_simple, "Add", 8192, {0, 0}, 4096);  // V reads A
      b.copy_out(4096, 4096);                                     // MTE3 reads B
      b.scalar("GetValue", 4096, 4, 1, false);                    // S reads B
      return b.take();
    };
    CHECK_FALSE(find_first_race(kernel(true)).has_value());
    CHECK(find_first_race(kernel(false)).has_value());
  }

  TEST_CASE("cross-pipe accesses to disjoint bytes are not races, even within one 32-byte block") {
    trace_builder b;
    b.copy_in(0, 4096);
    b.vector(op_class::vec_simple, "Add", 8192, {4096, 4096}, 4096);
    b.scalar("SetValue", 8192 + 4096, 4, 1, true);  // right after the Add's output
    b.scalar("SetValue", 4, 4, 1, true);            // inside the DataCopy's bytes: a race
    const auto race = find_first_race(b.trace());
    REQUIRE(race.has_value());
    CHECK(race->second_index == 3);
    CHECK(race->overlap.begin == 4);
    CHECK(race->overlap.end == 8);
    CHECK(contains(race->message, "SetValue (S, #3) writes it"));
    CHECK(contains(race->message, "DataCopy (MTE2, #0) writes UB [4, 8)"));

    trace_builder sub_block;
    sub_block.copy_in(0, 40);                      // ends inside the second 32-byte block
    sub_block.scalar("SetValue", 40, 4, 1, true);  // same block, other bytes
    CHECK_FALSE(find_first_race(sub_block.trace()).has_value());
  }

  TEST_CASE("a write after an unsynchronised read on another pipe is a race") {
    trace_builder b;
    b.copy_in(0, 4096);
    b.wait_flag(pipe::v, b.set_flag(pipe::mte2));
    b.vector(op_class::vec_simple, "Add", 8192, {0, 0}, 4096);
    b.copy_in(0, 4096);  // reuses the buffer the Add may still read: missing FreeTensor/AllocTensor
    const auto race = find_first_race(b.trace());
    REQUIRE(race.has_value());
    CHECK(race->first_index == 3);
    CHECK(race->second_index == 4);
    CHECK(contains(race->message, "Add (V, #3) reads UB [0, 4096)"));
    CHECK(contains(race->message, "V_MTE2"));
  }

  TEST_CASE("a scalar wait for V orders a later scalar-issued copy after V; without it, a race") {
    // The scalar unit waits for V (WaitFlag<V_S>), then issues an MTE2 copy into the bytes V
    // read: the copy cannot start before the wait, so V is done.
    trace_builder ordered;
    ordered.copy_in(0, 4096);
    ordered.wait_flag(pipe::v, ordered.set_flag(pipe::mte2));
    ordered.vector(op_class::vec_simple, "Add", 8192, {0, 0}, 4096);
    ordered.wait_flag(pipe::s, ordered.set_flag(pipe::v));
    ordered.copy_in(0, 4096);
    CHECK_FALSE(find_first_race(ordered.trace()).has_value());

    // The same with the wait on another pipe (MTE3) than the copy's: still no order for MTE2.
    trace_builder other_pipe;
    other_pipe.copy_in(0, 4096);
    other_pipe.wait_flag(pipe::v, other_pipe.set_flag(pipe::mte2));
    other_pipe.vector(op_class::vec_simple, "Add", 8192, {0, 0}, 4096);
    other_pipe.wait_flag(pipe::mte3, other_pipe.set_flag(pipe::v));
    other_pipe.copy_in(0, 4096);
    const auto race = find_first_race(other_pipe.trace());
    REQUIRE(race.has_value());
    CHECK(contains(race->message, "V_MTE2"));

    // A scalar wait that waited for a V instruction before the racing one orders nothing after.
    trace_builder early;
    early.copy_in(0, 4096);
    early.wait_flag(pipe::v, early.set_flag(pipe::mte2));
    early.wait_flag(pipe::s, early.set_flag(pipe::v));
    early.vector(op_class::vec_simple, "Add", 8192, {0, 0}, 4096);
    early.copy_in(0, 4096);
    CHECK(find_first_race(early.trace()).has_value());
  }

  TEST_CASE("a scalar store is not ordered before a later vector read by issue order alone") {
    // SetValue then a V read of the value: the scalar unit's own store still needs S_V.
    trace_builder store;
    store.scalar("LocalTensor::SetValue", 0, 4, 1, true);
    store.vector(op_class::vec_simple, "Adds", 8192, {0}, 32);
    const auto race = find_first_race(store.trace());
    REQUIRE(race.has_value());
    CHECK(contains(race->message, "S_V"));
    trace_builder synced;
    synced.scalar("LocalTensor::SetValue", 0, 4, 1, true);
    synced.wait_flag(pipe::v, synced.set_flag(pipe::s));
    synced.vector(op_class::vec_simple, "Adds", 8192, {0}, 32);
    CHECK_FALSE(find_first_race(synced.trace()).has_value());
  }

  TEST_CASE("the overlap reported merges the contiguous bytes racing with the same instruction") {
    trace_builder b;
    b.copy_in(0, 1024);
    b.copy_in(1024, 1024);
    b.vector(op_class::vec_simple, "Adds", 4096, {512}, 1024);
    const auto race = find_first_race(b.trace());
    REQUIRE(race.has_value());
    CHECK(race->first_index == 0);
    CHECK(race->overlap.begin == 512);
    CHECK(race->overlap.end == 1024);
  }

  TEST_CASE("well-synchronised tiled kernels with one or two buffers have no races") {
    for (uint32_t buffers : {1u, 2u}) {
      elementwise_options o;
      o.buffer_num = buffers;
      CHECK_FALSE(find_first_race(tiled_add_trace(o)).has_value());
      o.scalar_compute = true;
      CHECK_FALSE(find_first_race(tiled_add_trace(o)).has_value());
    }
  }

  TEST_CASE("dropping one hidden queue edge from a tiled kernel is found as a race") {
    elementwise_options o;
    core_trace trace = tiled_add_trace(o);
    // Cut the first tile's DeQue of x and y from their EnQue: the Add then reads both
    // unsynchronised.
    int cut = 0;
    for (instruction& in : trace.instructions)
      if (in.cls == op_class::wait_flag && in.on == pipe::v && cut < 2) {
        in.deps.clear();
        ++cut;
      }
    const auto race = find_first_race(trace);
    REQUIRE(race.has_value());
    CHECK(contains(race->message, "DataCopy (MTE2"));
    CHECK(contains(race->message, "Add (V"));
  }

  // GM round trips within a core: z stored on MTE3, then loaded back on MTE2 (kernel argument 2).
  // Instruction 0 loads x into UB [0, 4096), 1 stores it to z, `order` goes between the store and
  // the load of z back into UB [4096, 8192).
  core_trace gm_round_trip(const std::function<void(trace_builder&)>& order) {
    trace_builder b;
    b.gm(b.copy_in(0, 4096), false, 0, 0, 4096);
    b.wait_flag(pipe::mte3, b.set_flag(pipe::mte2));
    b.gm(b.copy_out(0, 4096), true, 2, 0, 4096);
    order(b);
    b.gm(b.copy_in(4096, 4096), false, 2, 0, 4096);
    return b.take();
  }

  TEST_CASE("a GM store on MTE3 loaded back on MTE2 without synchronisation is a race") {
    const auto race = find_first_race(gm_round_trip([](trace_builder&) {}));
    REQUIRE(race.has_value());
    MESSAGE(race->message);
    CHECK(race->first_index == 3);
    CHECK(race->second_index == 4);
    REQUIRE(race->gm_region.has_value());
    CHECK(*race->gm_region == 2);
    CHECK(race->gm_begin == 0);
    CHECK(race->gm_end == 4096);
    CHECK(contains(race->message,
                   "DataCopy (MTE3, #3) writes GM bytes [0, 4096) of kernel argument 2 while "
                   "DataCopy (MTE2, #4) reads it"));
    CHECK(contains(race->message, "MTE3_MTE2"));
    // A flag of the wrong direction, or a barrier of one pipe, orders nothing between the two.
    CHECK(find_first_race(gm_round_trip([](trace_builder& b) {
            b.wait_flag(pipe::mte3, b.set_flag(pipe::mte2));
          })).has_value());
    CHECK(find_first_race(gm_round_trip([](trace_builder& b) {
            instruction barrier;
            barrier.on = pipe::mte3;
            barrier.cls = op_class::barrier;
            barrier.api = "PipeBarrier<PIPE_MTE3>";
            b.add(barrier);
          })).has_value());
  }

  TEST_CASE(
      "the GM round trip ordered by a barrier, the right flag or a chain of flags is no race") {
    CHECK_FALSE(
        find_first_race(gm_round_trip([](trace_builder& b) { b.pipe_all_barrier(); })).has_value());
    CHECK_FALSE(find_first_race(gm_round_trip([](trace_builder& b) {
                  b.wait_flag(pipe::mte2, b.set_flag(pipe::mte3));
                })).has_value());
    // MTE3 -> V -> MTE2, as FreeTensor/AllocTensor of a VECOUT then a VECIN buffer order them.
    CHECK_FALSE(find_first_race(gm_round_trip([](trace_builder& b) {
                  b.wait_flag(pipe::v, b.set_flag(pipe::mte3));
                  b.wait_flag(pipe::mte2, b.set_flag(pipe::v));
                })).has_value());
  }

  TEST_CASE("GM accesses to other bytes or another argument, or on one pipe, are not races") {
    trace_builder b;
    b.gm(b.copy_out(0, 4096), true, 2, 0, 4096);
    b.gm(b.copy_in(4096, 4096), false, 2, 4096, 4096);  // the next bytes of z
    b.gm(b.copy_in(8192, 4096), false, 0, 0, 4096);     // x at the same offset
    b.gm(b.copy_out(0, 4096), true, 2, 0, 4096);        // z again, on MTE3
    // Interleaved rows: the store writes the even 64-byte rows, the load reads the odd ones.
    b.gm_strided(b.copy_out(0, 1024), true, 3, 0, 64, 16, 128);
    b.gm_strided(b.copy_in(12288, 1024), false, 3, 64, 64, 16, 128);
    CHECK_FALSE(find_first_race(b.trace()).has_value());
    // A row just past the store's last, then one of the store's own rows.
    b.gm(b.copy_in(12288, 64), false, 3, 16 * 128, 64);
    CHECK_FALSE(find_first_race(b.trace()).has_value());
    b.gm(b.copy_in(12288, 64), false, 3, 14 * 128, 64);
    CHECK(find_first_race(b.trace()).has_value());
  }

  TEST_CASE("a GM store over bytes loaded on another pipe is a race unless the load is ordered") {
    // In place: x loaded, added on V, stored back over x. Through V the flags order the store
    // after the load; a store straight after the load does not wait for it.
    trace_builder ordered;
    ordered.gm(ordered.copy_in(0, 4096), false, 0, 0, 4096);
    ordered.wait_flag(pipe::v, ordered.set_flag(pipe::mte2));
    ordered.vector(op_class::vec_simple, "Adds", 4096, {0}, 4096);
    ordered.wait_flag(pipe::mte3, ordered.set_flag(pipe::v));
    ordered.gm(ordered.copy_out(4096, 4096), true, 0, 0, 4096);
    CHECK_FALSE(find_first_race(ordered.trace()).has_value());

    trace_builder unordered;
    unordered.gm(unordered.copy_in(0, 4096), false, 0, 0, 4096);
    unordered.gm(unordered.copy_out(8192, 4096), true, 0, 0, 4096);
    const auto race = find_first_race(unordered.trace());
    REQUIRE(race.has_value());
    CHECK(contains(race->message, "reads GM bytes [0, 4096) of kernel argument 0"));
    CHECK(contains(race->message, "MTE2_MTE3"));
  }

  TEST_CASE("GM stores of the same bytes from two pipes race unless ordered") {
    auto stores = [](bool ordered) {
      trace_builder b;
      instruction fixpipe;
      fixpipe.on = pipe::fix;
      fixpipe.cls = op_class::cube_fixpipe;
      fixpipe.api = "Fixpipe";
      b.gm(b.add(fixpipe), true, 2, 0, 4096);
      if (ordered) b.wait_flag(pipe::mte3, b.set_flag(pipe::fix));
      b.gm(b.copy_out(0, 2048), true, 2, 1024, 2048);
      return b.take();
    };
    const auto race = find_first_race(stores(false));
    REQUIRE(race.has_value());
    CHECK(race->gm_begin == 1024);
    CHECK(race->gm_end == 3072);
    CHECK(contains(race->message, "Fixpipe (FIX, #0) writes GM bytes [1024, 3072)"));
    CHECK_FALSE(find_first_race(stores(true)).has_value());
  }

  TEST_CASE("the scalar unit's GM accesses are left to the compiler's auto-sync") {
    trace_builder b;
    b.gm(b.copy_out(0, 4096), true, 2, 0, 4096);
    instruction get;
    get.on = pipe::s;
    get.cls = op_class::scalar_gm;
    get.api = "GlobalTensor::GetValue";
    b.gm(b.add(get), false, 2, 0, 4);
    CHECK_FALSE(find_first_race(b.trace()).has_value());
  }

  TEST_CASE("detection is fast on a long trace") {
    elementwise_options o;
    o.tiles = 20000;  // about 300k instructions
    const core_trace trace = tiled_add_trace(o);
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(find_first_race(trace).has_value());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(trace.instructions.size() << " instructions checked in " << seconds << " s");
    CHECK(seconds < 2.0);
  }
}

}  // namespace
}  // namespace aopt::sim
