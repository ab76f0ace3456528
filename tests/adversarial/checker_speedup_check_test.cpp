// Plausibility of a speedup (issue 17 item 5): a large speedup must show in the profile.
#include "npu/speedup_check.hpp"

#include <doctest/doctest.h>

using aopt::npu::eval_result;
using aopt::npu::unexplained_speedup;

namespace {

eval_result measured(double latency_us, uint32_t block_dim, uint64_t gm_bytes, double busy_us) {
  eval_result r;
  r.status = aopt::npu::eval_status::ok;
  r.latency_us = latency_us;
  r.profile.block_dim = block_dim;
  r.profile.gm_read_bytes = gm_bytes;
  r.profile.mean_burst_bytes = 4096;
  r.profile.vector_instructions = 1000;
  r.profile.mte2.time_us = busy_us;
  r.profile.core_time_max_us = busy_us;
  return r;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("a 5x speedup moving the same bytes on the same cores is unexplained") {
    const eval_result before = measured(100, 8, 1 << 20, 95);
    auto why = unexplained_speedup(before, measured(20, 8, 1 << 20, 95));
    REQUIRE(why);
    CHECK(why->find("5.00x faster") != std::string::npos);
    CHECK(why->find("blockDim 8 -> 8") != std::string::npos);
  }

  TEST_CASE("speedups the profile explains, or small ones, pass") {
    const eval_result before = measured(100, 8, 1 << 20, 95);
    CHECK_FALSE(unexplained_speedup(before, measured(60, 8, 1 << 20, 95)));   // under 2x
    CHECK_FALSE(unexplained_speedup(before, measured(20, 40, 1 << 20, 19)));  // 5x the cores
    CHECK_FALSE(unexplained_speedup(before, measured(30, 8, 1 << 20, 28)));   // busy time 3.4x
    eval_result failed = measured(1, 8, 1 << 20, 95);
    failed.status = aopt::npu::eval_status::precision_error;
    CHECK_FALSE(unexplained_speedup(before, failed));
  }
}
