// A composite instruction's work (issue 30 item 4, price by work): the API template behind it
// names its operands and a work size, and the runtime prices the larger of that size and what the
// operands span. A caller's figure can add to the price, never take the price of touching the
// operands away: a zero work size once made a composite free. The screen keeps candidates from
// calling composite_call at all; this is the layer beneath it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way

// The trace entry of one composite over 1024 floats read and 1024 written (4 KiB each), with
// `work_bytes` as its caller's figure.
instruction composite_with_work(uint64_t work_bytes) {
  testing::shim_run run;
  const core_trace trace = run.run([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> dst;
    TBuf<TPosition::VECCALC> src;
    pipe.InitBuffer(dst, 4096);
    pipe.InitBuffer(src, 4096);
    uint8_t* p[2];
    detail::composite_call(
        aopt_sim::rt::vec_class::simple,
        {detail::writes(dst.Get<float>(), 1024), detail::reads(src.Get<float>(), 1024)}, p,
        work_bytes, "WorkProbe", aopt_sim::rt::call_site(__LINE__));
  });
  const auto found =
      std::find_if(trace.instructions.begin(), trace.instructions.end(),
                   [](const instruction& in) { return std::strcmp(in.api, "WorkProbe") == 0; });
  REQUIRE(found != trace.instructions.end());
  return *found;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("a composite costs at least what its operands span, whatever work its caller names") {
    // No work, or less than the operands: priced as the 4 KiB the operands span.
    for (const uint64_t named : {uint64_t{0}, uint64_t{64}, uint64_t{4095}}) {
      CAPTURE(named);
      const instruction in = composite_with_work(named);
      CHECK(in.bytes == 4096);
      CHECK(in.repeats == 16);  // 256-byte repeats
      CHECK(in.on == pipe::v);
      CHECK(in.reads.size() == 1);
      CHECK(in.writes.size() == 1);
    }
    // More work than the operands span (a sort's passes over its data): priced as named.
    const instruction more = composite_with_work(1 << 20);
    CHECK(more.bytes == uint64_t{1} << 20);
    CHECK(more.repeats == 4096);
  }
}

}  // namespace aopt::sim
