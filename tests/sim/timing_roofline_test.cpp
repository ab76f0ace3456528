// The roofline bound: the operator's GM traffic over HBM bandwidth, its least vector and cube work
// (op.json least_work) over peak throughput, plus the cheapest launch; the achieved fraction
// compares a run's latency with it. Nothing of a run but its latency goes in (issue 30 item 4).
#include <doctest/doctest.h>

#include "npu/sim/runtime/roofline.hpp"

namespace aopt::sim {
namespace {

// An operator of `n` float32 elements in and out (8 n bytes of GM traffic), with `extra` fields.
npu::op_spec elementwise(int64_t n, const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json j = {{"name", "op"},
                      {"inputs", {{{"name", "x"}, {"dtype", "float32"}, {"shape", {n}}}}},
                      {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"shape", {n}}}}}};
  j.update(extra);
  auto spec = npu::parse_op_spec(j);
  REQUIRE_MESSAGE(spec.ok(), spec.error().to_string());
  return *spec;
}

// c[m, n] = a[m, k] b[k, n] in float16.
npu::op_spec matmul(int64_t m, int64_t k, int64_t n, bool declared) {
  nlohmann::json j = {{"name", "mm"},
                      {"category", "matmul"},
                      {"inputs",
                       {{{"name", "a"}, {"dtype", "float16"}, {"shape", {m, k}}},
                        {{"name", "b"}, {"dtype", "float16"}, {"shape", {k, n}}}}},
                      {"outputs", {{{"name", "c"}, {"dtype", "float32"}, {"shape", {m, n}}}}}};
  if (declared) {
    j["least_work"] = {
        {"cube_macs", {{"output", "c"}, {"reduce", {{"input", "a"}, {"axis", -1}}}}}};
  }
  auto spec = npu::parse_op_spec(j);
  REQUIRE_MESSAGE(spec.ok(), spec.error().to_string());
  return *spec;
}

TEST_SUITE("sim") {
  TEST_CASE(
      "a memory-bound operator's bound is its GM bytes over the HBM bandwidth plus one core's "
      "launch") {
    const hw_profile hw;
    // 10 M float32 in and out: 80 MB at 800 GB/s = 100 us.
    const npu::roofline r = compute_roofline(elementwise(10'000'000), 200, hw);
    CHECK(r.memory_bound_us == doctest::Approx(100));
    // One simple vector pass over the 40 MB of output on 40 cores at 1.5 GHz.
    CHECK(r.vector_bound_us == doctest::Approx(40e6 / 256 / 40 / 1.5e3));
    CHECK(r.compute_bound_us == 0);
    CHECK(r.bound_us == doctest::Approx(hw.launch_overhead_us(1) + 100));
    CHECK(r.achieved_fraction == doctest::Approx(r.bound_us / 200));
  }

  TEST_CASE("op.json's least vector passes, not a run's trace, make the vector bound") {
    const hw_profile hw;
    const auto passes = [&](const nlohmann::json& extra) {
      return compute_roofline(elementwise(1'000'000, extra), 100, hw).vector_bound_us;
    };
    const double one = passes(nlohmann::json::object());
    CHECK(one > 0);
    CHECK(passes({{"least_work", {{"vector_passes", 3}}}}) == doctest::Approx(3 * one));
    // A data-movement operator may copy its outputs: no vector work is claimed.
    CHECK(passes({{"category", "data_movement"}}) == 0);
    // 2000 passes would claim more than an operator could need.
    CHECK_FALSE(
        npu::parse_op_spec({{"name", "op"},
                            {"inputs", {{{"name", "x"}, {"dtype", "float32"}, {"shape", {4}}}}},
                            {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"shape", {4}}}}},
                            {"least_work", {{"vector_passes", 2000}}}})
            .ok());
  }

  TEST_CASE("a matmul's compute bound is its output times K multiply-accumulates at peak rate") {
    const hw_profile hw;
    // 2048 x 2048 x 2048 half: 8.6 G MACs at 4096 a cycle on 20 cores at 1.5 GHz.
    const npu::roofline r = compute_roofline(matmul(2048, 2048, 2048, true), 1000, hw);
    const double macs = 2048.0 * 2048 * 2048;
    CHECK(r.compute_bound_us == doctest::Approx(macs / 4096 / 20 / 1.5e3));
    CHECK(r.compute_bound_us > r.memory_bound_us);
    CHECK(r.bound_us == doctest::Approx(hw.launch_overhead_us(1) + r.compute_bound_us));
    // Its outputs may come from the cube alone: no vector pass is claimed.
    CHECK(r.vector_bound_us == 0);
    // On a smaller shape (a validation shape) the bound follows the shapes of the run.
    CHECK(compute_roofline(matmul(1024, 2048, 2048, true), 1000, hw).compute_bound_us ==
          doctest::Approx(r.compute_bound_us / 2));
    // Undeclared, no cube work is claimed: the bound is the memory bound.
    CHECK(compute_roofline(matmul(2048, 2048, 2048, false), 1000, hw).compute_bound_us == 0);
  }

  TEST_CASE("least_work names tensors and an axis that exist") {
    auto with = [](const nlohmann::json& cube) {
      return npu::parse_op_spec(
          {{"name", "mm"},
           {"inputs", {{{"name", "a"}, {"dtype", "float16"}, {"shape", {4, 8}}}}},
           {"outputs", {{{"name", "c"}, {"dtype", "float32"}, {"shape", {4, 4}}}}},
           {"least_work", {{"cube_macs", cube}}}});
    };
    CHECK(with({{"output", "c"}, {"reduce", {{"input", "a"}, {"axis", 1}}}}).ok());
    CHECK(with({{"output", "c"}, {"reduce", {{"input", "a"}, {"axis", 1}}}})->least_cube_macs() ==
          16 * 8);
    CHECK_FALSE(with({{"output", "z"}, {"reduce", {{"input", "a"}, {"axis", 1}}}}).ok());
    CHECK_FALSE(with({{"output", "c"}, {"reduce", {{"input", "b"}, {"axis", 1}}}}).ok());
    const auto bad_axis = with({{"output", "c"}, {"reduce", {{"input", "a"}, {"axis", 2}}}});
    REQUIRE_FALSE(bad_axis.ok());
    CHECK(bad_axis.error().message().find("least_work.cube_macs.reduce.axis") != std::string::npos);
  }

  TEST_CASE("an attention's two products are summed, one of them kept inside the operator") {
    // out[s, d] = softmax(q k^T) v with q, k, v [s, d] half: q k^T is s x s x d MACs (its s x s
    // result is never an output), the product with v s x d x s.
    const auto attention = [](int64_t s, int64_t d, const nlohmann::json& cube) {
      return npu::parse_op_spec(
          {{"name", "attn"},
           {"inputs",
            {{{"name", "q"}, {"dtype", "float16"}, {"shape", {s, d}}},
             {{"name", "k"}, {"dtype", "float16"}, {"shape", {s, d}}},
             {{"name", "v"}, {"dtype", "float32"}, {"shape", {s, d}}}}},
           {"outputs", {{{"name", "out"}, {"dtype", "float32"}, {"shape", {s, d}}}}},
           {"least_work", {{"cube_macs", cube}}}});
    };
    const nlohmann::json scores = {
        {"result", {{{"input", "q"}, {"axis", -2}}, {{"input", "k"}, {"axis", 0}}}},
        {"reduce", {{"input", "q"}, {"axis", -1}}}};
    const nlohmann::json values = {{"output", "out"}, {"reduce", {{"input", "v"}, {"axis", -2}}}};
    const auto spec = attention(256, 64, {scores, values});
    REQUIRE_MESSAGE(spec.ok(), spec.error().to_string());
    const std::vector<npu::cube_work> work = spec->least_cube_work();
    REQUIRE(work.size() == 2);
    CHECK(work[0].macs == 256u * 256 * 64);
    CHECK(work[0].type == npu::dtype::float16);
    CHECK(work[1].macs == 256u * 64 * 256);
    CHECK(work[1].type == npu::dtype::float32);
    CHECK(spec->least_cube_macs() == 2u * 256 * 256 * 64);
    // Each product at its own dtype's rate: half at 4096 MACs a cycle, float at 1024.
    const hw_profile hw;
    const npu::roofline r = compute_roofline(*spec, 1000, hw);
    CHECK(r.compute_bound_us ==
          doctest::Approx(hw.cycles_to_us((256.0 * 256 * 64 / hw.cube_f16_macs_per_cycle +
                                           256.0 * 64 * 256 / hw.cube_f32_macs_per_cycle) /
                                          hw.cube_cores)));
    // The spec reads back as it was written, and one product still as a single object.
    const auto again = npu::parse_op_spec(nlohmann::json(*spec));
    REQUIRE(again.ok());
    CHECK(again->least_cube_macs() == spec->least_cube_macs());
    CHECK(nlohmann::json(*attention(256, 64, values))["least_work"]["cube_macs"].is_object());
    // A product is an output or extents, K an axis of an input, each named as it exists.
    CHECK_FALSE(attention(8, 8, nlohmann::json::array()).ok());
    CHECK_FALSE(attention(8, 8,
                          {{"output", "out"},
                           {"result", {{{"input", "q"}, {"axis", 0}}}},
                           {"reduce", {{"input", "q"}, {"axis", -1}}}})
                    .ok());
    CHECK_FALSE(attention(8, 8, {{"reduce", {{"input", "q"}, {"axis", -1}}}}).ok());
    CHECK_FALSE(
        attention(8, 8, {{"output", "out"}, {"reduce", {{"output", "out"}, {"axis", 0}}}}).ok());
    const auto bad = attention(
        8, 8,
        {values,
         {{"result", {{{"input", "s"}, {"axis", 0}}}}, {"reduce", {{"input", "q"}, {"axis", 1}}}}});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message().find("least_work.cube_macs[1].result[0].input") !=
          std::string::npos);
  }

  TEST_CASE(
      "a latency below the bound shows as an achieved fraction above 1, and no latency as 0") {
    const hw_profile hw;
    CHECK(compute_roofline(elementwise(10'000'000), 50, hw).achieved_fraction > 1);
    CHECK(compute_roofline(elementwise(10'000'000), 0, hw).achieved_fraction == 0);
  }

  TEST_CASE("the roofline serialises every field to JSON") {
    nlohmann::json j = compute_roofline(elementwise(1000), 30, hw_profile{});
    CHECK(j.size() == 5);
    CHECK(j.at("bound_us").get<double>() > 0);
    CHECK(j.contains("compute_bound_us"));
    CHECK(j.contains("achieved_fraction"));
  }
}

}  // namespace
}  // namespace aopt::sim
