// Issue 30 item 4: the roofline bound is the operator's, never the candidate's trace. Against the
// honest tests/data/ops/add_tiled (z = x + y, float16), a candidate that doubles its traced
// vector work and one that computes every element with scalar UB accesses (no vector work at
// all) get the very bound the honest kernel gets; each is priced at its own latency, and the
// honest candidate evaluated next is still ok at its true latency.
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::testing::checker_fixture;

TEST_SUITE("adversarial") {
  TEST_CASE("a candidate cannot move the roofline bound by tracing more or less work") {
    checker_fixture f;
    const auto& op = f.op;
    const auto honest = f.unscreened.evaluate(op, op.host_source, op.kernel_source, {});
    REQUIRE_MESSAGE(honest.ok(), f.describe(honest));
    CHECK(honest.roof.bound_us > 0);
    CHECK(honest.roof.achieved_fraction > 0);
    CHECK(honest.roof.achieved_fraction <= 1);

    const std::string add = "    AscendC::Add(c, a, b, tileElems);\n";
    struct variant {
      const char* name;
      std::string kernel;
    };
    const variant variants[] = {
        {"twice the vector work", f.replace(op.kernel_source, add, add + add)},
        {"no vector work (scalar UB accesses)",
         f.replace(
             op.kernel_source, add,
             "    for (uint32_t i = 0; i < tileElems; ++i)\n"
             "      c.SetValue(i, static_cast<DTYPE_Z>(static_cast<float>(a.GetValue(i)) +\n"
             "                                         static_cast<float>(b.GetValue(i))));\n")},
    };
    for (const variant& v : variants) {
      CAPTURE(v.name);
      const auto r = f.unscreened.evaluate(op, op.host_source, v.kernel, {});
      REQUIRE_MESSAGE(r.ok(), f.describe(r));
      // Its own latency, slower than the honest one; the bound does not move.
      CHECK(r.latency_us > honest.latency_us);
      CHECK(r.roof.memory_bound_us == honest.roof.memory_bound_us);
      CHECK(r.roof.vector_bound_us == honest.roof.vector_bound_us);
      CHECK(r.roof.compute_bound_us == honest.roof.compute_bound_us);
      CHECK(r.roof.bound_us == honest.roof.bound_us);
      CHECK(r.roof.achieved_fraction < honest.roof.achieved_fraction);
      f.check_honest_still_ok();
    }
  }
}
