// GM races between cores over synthetic traces: a core reading GM another core writes (or
// writing GM another reads) with no SyncAll, IBSet -> IBWait or CrossCoreSetFlag -> WaitFlag
// ordering the two, in the order the simulator ran them (seq).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "npu/sim/runtime/gm_cross_core_race.hpp"
#include "sim/synthetic_trace.hpp"

namespace aopt::sim {
namespace {

using testing::trace_builder;

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two blocks: block 0 stores z [0, 4096) (kernel argument 2), block 1 loads it after; `sync`
// adds to each block, before its access, what orders them (nothing: a race).
std::vector<core_trace> store_then_load(
    const std::function<void(trace_builder&, uint32_t block, bool before_access)>& sync) {
  std::vector<core_trace> traces;
  for (uint32_t block = 0; block < 2; ++block) {
    trace_builder b;
    sync(b, block, true);
    if (block == 0)
      b.gm(b.copy_out(0, 4096), true, 2, 0, 4096, 0);
    else
      b.gm(b.copy_in(0, 4096), false, 2, 0, 4096, 1);
    sync(b, block, false);
    traces.push_back(b.take());
    traces.back().block_idx = block;
  }
  return traces;
}

// IBSet/IBWait's flag: the block it names << 32 | eventID (trace.hpp op_class::ib_set).
constexpr uint64_t flag_of(uint64_t block, uint64_t event) {
  return block << 32 | event;
}

TEST_SUITE("sim") {
  TEST_CASE("a block loading GM another block stored, with nothing between them, is a race") {
    const auto race = find_cross_core_race(store_then_load([](trace_builder&, uint32_t, bool) {}));
    REQUIRE(race.has_value());
    MESSAGE(race->message);
    CHECK(race->first_core == 0);
    CHECK(race->second_core == 1);
    CHECK(mentions(race->message,
                   "block 0's DataCopy (MTE3, #0) writes GM bytes [0, 4096) of kernel argument 2 "
                   "and block 1's DataCopy (MTE2, #0) reads them"));
    CHECK(mentions(race->message, "SyncAll, IBSet/IBWait or CrossCoreSetFlag/WaitFlag"));
  }

  TEST_CASE("SyncAll between the store and the load orders them; before the store it does not") {
    CHECK_FALSE(
        find_cross_core_race(store_then_load([](trace_builder& b, uint32_t block, bool before) {
          if (before == (block == 1)) b.cross_core_sync(op_class::sync_all, "SyncAll");
        })).has_value());
    // Both blocks call SyncAll first: the store still comes after it.
    CHECK(find_cross_core_race(store_then_load([](trace_builder& b, uint32_t, bool before) {
            if (before) b.cross_core_sync(op_class::sync_all, "SyncAll");
          })).has_value());
  }

  TEST_CASE("IBSet after the store and IBWait for that flag before the load order them") {
    auto flags = [](uint64_t waited) {
      return store_then_load([waited](trace_builder& b, uint32_t block, bool before) {
        if (block == 0 && !before) b.cross_core_sync(op_class::ib_set, "IBSet", flag_of(0, 0));
        if (block == 1 && before) b.cross_core_sync(op_class::ib_wait, "IBWait", waited);
      });
    };
    CHECK_FALSE(find_cross_core_race(flags(flag_of(0, 0))).has_value());
    // A wait for a flag nobody set (the functional run calls it a deadlock) orders nothing.
    CHECK(find_cross_core_race(flags(flag_of(0, 1))).has_value());
  }

  TEST_CASE("a flag set before the store, or another block's flag, does not order the store") {
    std::vector<core_trace> traces;
    for (uint32_t block = 0; block < 3; ++block) {
      trace_builder b;
      if (block < 2) b.cross_core_sync(op_class::ib_set, "IBSet", flag_of(block, 0));
      if (block == 1) b.gm(b.copy_out(0, 4096), true, 2, 0, 4096, 0);
      if (block == 2) {
        b.cross_core_sync(op_class::ib_wait, "IBWait", flag_of(0, 0));
        b.cross_core_sync(op_class::ib_wait, "IBWait", flag_of(1, 0));
        b.gm(b.copy_in(0, 4096), false, 2, 0, 4096, 1);
      }
      traces.push_back(b.take());
      traces.back().block_idx = block;
    }
    const auto race = find_cross_core_race(traces);
    REQUIRE(race.has_value());
    CHECK(race->first_core == 1);
    CHECK(race->second_core == 2);
  }

  TEST_CASE("a store over bytes another block loaded, with nothing between them, is a race") {
    std::vector<core_trace> traces(2);
    trace_builder reader;
    reader.gm(reader.copy_in(0, 4096), false, 0, 1024, 4096, 0);
    traces[0] = reader.take();
    trace_builder writer;
    writer.gm(writer.copy_out(0, 2048), true, 0, 4096, 2048, 1);
    traces[1] = writer.take();
    traces[1].block_idx = 1;
    const auto race = find_cross_core_race(traces);
    REQUIRE(race.has_value());
    CHECK(mentions(race->message, "reads GM bytes [4096, 5120) of kernel argument 0"));
    CHECK(mentions(race->message, "block 1's DataCopy (MTE3, #0) writes them"));
  }

  TEST_CASE("blocks touching their own bytes, reading shared ones or all storing are not races") {
    std::vector<core_trace> traces;
    for (uint32_t block = 0; block < 4; ++block) {
      trace_builder b;
      const uint64_t slice = uint64_t{block} * 4096;
      b.gm(b.copy_in(0, 4096), false, 0, slice, 4096, block * 4);      // its slice of x
      b.gm(b.copy_in(4096, 256), false, 1, 0, 256, block * 4 + 1);     // a bias every block reads
      b.gm(b.copy_out(0, 4096), true, 2, slice, 4096, block * 4 + 2);  // its slice of z
      b.gm(b.copy_out(0, 256), true, 3, 0, 256, block * 4 + 3);        // a sum all accumulate into
      traces.push_back(b.take());
      traces.back().block_idx = block;
    }
    CHECK_FALSE(find_cross_core_race(traces).has_value());
  }

  TEST_CASE("CrossCoreSetFlag -> CrossCoreWaitFlag orders an AIC's store before an AIV's load") {
    auto mix = [](bool signalled) {
      std::vector<core_trace> traces(2);
      trace_builder aic;
      instruction fixpipe;
      fixpipe.on = pipe::fix;
      fixpipe.cls = op_class::cube_fixpipe;
      fixpipe.api = "Fixpipe";
      aic.gm(aic.add(fixpipe), true, 3, 0, 8192, 0);
      instruction set;
      set.on = pipe::fix;
      set.cls = op_class::cross_set;
      set.api = "CrossCoreSetFlag";
      set.signals = {7};
      aic.add(set);
      traces[0] = aic.take();
      traces[0].kind = core_kind::aic;
      trace_builder aiv;
      instruction wait;
      wait.on = pipe::s;
      wait.cls = op_class::cross_wait;
      wait.api = "CrossCoreWaitFlag";
      if (signalled) wait.signals = {7};
      aiv.add(wait);
      aiv.gm(aiv.copy_in(0, 8192), false, 3, 0, 8192, 1);
      traces[1] = aiv.take();
      traces[1].kind = core_kind::aiv;
      return traces;
    };
    CHECK_FALSE(find_cross_core_race(mix(true)).has_value());
    const auto race = find_cross_core_race(mix(false));
    REQUIRE(race.has_value());
    CHECK(mentions(race->message, "AIC 0 (group 0)'s Fixpipe (FIX, #0) writes"));
  }

  TEST_CASE("one core's own GM round trip is the per-core detector's, not this one's") {
    trace_builder b;
    b.gm(b.copy_out(0, 4096), true, 2, 0, 4096, 0);
    b.gm(b.copy_in(0, 4096), false, 2, 0, 4096, 1);
    CHECK_FALSE(find_cross_core_race({b.take()}).has_value());
  }
}

}  // namespace
}  // namespace aopt::sim
