// The roofline bound: GM traffic over HBM bandwidth, vector work over peak vector throughput,
// plus the cheapest launch; the achieved fraction compares a run's latency with it.
#include <doctest/doctest.h>

#include "npu/sim/runtime/roofline.hpp"

namespace aopt::sim {
namespace {

TEST_SUITE("sim") {
  TEST_CASE(
      "a memory-bound operator's bound is its GM bytes over the HBM bandwidth plus one core's "
      "launch") {
    const hw_profile hw;
    const npu::roofline r = compute_roofline(80'000'000, 0, 200, hw);  // 80 MB at 800 GB/s = 100 us
    CHECK(r.memory_bound_us == doctest::Approx(100));
    CHECK(r.vector_bound_us == 0);
    CHECK(r.bound_us == doctest::Approx(hw.launch_overhead_us(1) + 100));
    CHECK(r.achieved_fraction == doctest::Approx(r.bound_us / 200));
  }

  TEST_CASE("a compute-bound operator's bound is its vector work spread over every vector core") {
    const hw_profile hw;
    const double work = 40 * 1.5e6;  // 1.5 M cycles per core on 40 cores at 1.5 GHz = 1000 us
    const npu::roofline r = compute_roofline(1000, work, 2000, hw);
    CHECK(r.vector_bound_us == doctest::Approx(1000));
    CHECK(r.bound_us == doctest::Approx(hw.launch_overhead_us(1) + 1000));
    CHECK(r.achieved_fraction < 1);
  }

  TEST_CASE(
      "a latency below the bound shows as an achieved fraction above 1, and no latency as 0") {
    const hw_profile hw;
    CHECK(compute_roofline(80'000'000, 0, 50, hw).achieved_fraction > 1);
    CHECK(compute_roofline(80'000'000, 0, 0, hw).achieved_fraction == 0);
  }

  TEST_CASE("the roofline serialises every field to JSON") {
    nlohmann::json j = compute_roofline(1000, 10, 30, hw_profile{});
    CHECK(j.size() == 5);
    CHECK(j.at("bound_us").get<double>() > 0);
    CHECK(j.contains("compute_bound_us"));
    CHECK(j.contains("achieved_fraction"));
  }
}

}  // namespace
}  // namespace aopt::sim
