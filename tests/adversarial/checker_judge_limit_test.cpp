// Issue 30 item 6: the judge is bounded. Judging a delivery (decoding it, checking its outputs
// and trace, replaying its GM writes and reads, the timing model) costs what the trace claims,
// so it runs in a process of its own under RLIMIT_CPU and RLIMIT_AS (judge_process.hpp).
// A candidate whose trace makes the judge reach either limit has failed (runtime_error
// "judge_limit"), not aopt; the honest candidate evaluated next is ok at its true latency.
// The test device's bounds are lowered so that a cheap trace reaches them; the defaults are far
// above the costliest honest judge measured (sim_device_options).
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

// Passes that take the judge past the test device's bounds. Measured since the judge decodes the
// delivery where it is mapped: a pass costs the judge about 1.8 ms of CPU and 0.8 MiB resident,
// the mapped delivery included (200 passes: 0.44 s and 174 MiB; 600 passes: 1.1 s and 500 MiB),
// so 1500 passes are over twice the CPU bound and 400 past 256 MiB of address space whatever its
// threads and arenas add; the honest add 12 ms and 68 MiB.
constexpr int passes_past_cpu_bound = 1500;
constexpr int passes_past_memory_bound = 400;
constexpr uint64_t test_judge_memory = 256ull << 20;

// The honest add, then the whole tiled pass again `repeats` times: every pass is a correct,
// fully traced z = x + y, so only the size of the trace is hostile.
std::string repeated_passes(const checker_fixture& f, int repeats) {
  return checker_fixture::replace(
      f.op.kernel_source, "  op.Run();\n",
      "  for (int pass = 0; pass < " + std::to_string(repeats) + "; ++pass) op.Run();\n");
}

// `hostile` on a device with `options`' lowered bounds is judge_limit; then the bounded device's
// honest verdict is the unbounded one's, and so is the fixture's own.
void check_judge_limit_then_honest(checker_fixture& f, const aopt::npu::sim_device_options& options,
                                   const std::string& hostile) {
  aopt::npu::sim_device bounded{aopt::testing::checker_profile(), options};
  auto r = bounded.evaluate(f.op, f.op.host_source, hostile, {});
  CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
  CHECK_MESSAGE(r.error_kind == "judge_limit", f.describe(r));
  CHECK(r.latency_us == 0);
  r = bounded.evaluate(f.op, f.op.host_source, f.op.kernel_source, {});
  CHECK_MESSAGE(r.ok(), f.describe(r));
  CHECK(r.latency_us == f.honest_latency);
  f.check_honest_still_ok();
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("a trace that makes the judge reach its CPU-time limit is judge_limit") {
    checker_fixture f;
    auto options = aopt::testing::checker_options(f.work.path(), false);
    options.judge_cpu_seconds = 1;
    // So many passes deliver more trace than a device allows by default.
    options.delivery_trace_bytes = 1ull << 30;
    options.file_size_bytes = 1ull << 30;
    check_judge_limit_then_honest(f, options, repeated_passes(f, passes_past_cpu_bound));
  }

  TEST_CASE("a trace that makes the judge reach its memory limit is judge_limit") {
    checker_fixture f;
    auto options = aopt::testing::checker_options(f.work.path(), false);
    options.judge_address_space_bytes = test_judge_memory;
    check_judge_limit_then_honest(f, options, repeated_passes(f, passes_past_memory_bound));
  }
}
