#include "npu/protocol/eval_result.hpp"

#include <doctest/doctest.h>

using nlohmann::json;

namespace {

aopt::npu::eval_result sample_result() {
  aopt::npu::eval_result r;
  r.status = aopt::npu::eval_status::precision_error;
  r.error_kind = "data_race";
  r.message = "DataCopy (MTE2) writes UB [0, 512) read by Add (V) without a sync";
  r.latency_us = 12.5;
  r.latency = {12.5, 12.0, 13.0, 0.25, 3};
  r.profile.vector = {3.5, 0.28};
  r.profile.mte2 = {9.0, 0.72};
  r.profile.block_dim = 8;
  r.profile.ub_high_water_bytes = 65536;
  r.profile.ub_allocations = {{21, 2, 16384}, {22, 2, 16384}};
  r.profile.gm_read_bytes = 1u << 20;
  r.profile.trace_instructions = 1234;
  r.roof = {5.0, 1.0, 2.0, 9.0, 0.72};
  r.diagnostics = {"line one", "line two"};
  r.device = "sim";
  r.device_profile = "ascend910b4";
  r.compile_seconds = 0.8;
  r.run_seconds = 0.1;
  r.phases.compile = 0.5;
  r.phases.link = 0.25;
  r.phases.check = 0.125;
  r.from_cache = true;
  return r;
}

}  // namespace

TEST_SUITE("protocol") {
  TEST_CASE("eval_result JSON uses the field names, 'roofline' for roof and the status name") {
    json j = sample_result();
    CHECK(j.at("status") == "precision_error");
    CHECK(j.at("error_kind") == "data_race");
    CHECK(j.at("latency_us") == 12.5);
    CHECK(j.at("latency").at("repetitions") == 3);
    CHECK(j.at("profile").at("mte2").at("ratio") == 0.72);
    CHECK(j.at("profile").at("block_dim") == 8);
    CHECK(j.at("roofline").at("achieved_fraction") == 0.72);
    CHECK_FALSE(j.contains("roof"));
    CHECK(j.at("diagnostics").size() == 2);
    CHECK(j.at("device_profile") == "ascend910b4");
  }

  TEST_CASE("eval_result survives a JSON round trip") {
    json j = sample_result();
    auto back = j.get<aopt::npu::eval_result>();
    CHECK(json(back) == j);
    CHECK(back.status == aopt::npu::eval_status::precision_error);
    CHECK(back.profile.vector.time_us == 3.5);
    CHECK(back.roof.bound_us == 9.0);
    REQUIRE(back.profile.ub_allocations.size() == 2);
    CHECK(back.profile.ub_allocations[1].line == 22);
    CHECK(back.profile.ub_allocations[1].buffers == 2);
    CHECK(back.profile.ub_allocations[1].bytes_each == 16384);
    CHECK(back.phases.compile == 0.5);
    CHECK(back.phases.link == 0.25);
    CHECK(back.phases.check == 0.125);
    CHECK(back.phases.run == 0);
    CHECK(back.from_cache);
    CHECK_FALSE(j.contains("confirmed"));
    CHECK_FALSE(back.confirmed);

    aopt::npu::eval_result confirmed = sample_result();
    confirmed.confirmed = true;
    CHECK(json(confirmed).get<aopt::npu::eval_result>().confirmed);
  }

  TEST_CASE("the cube's pipes are in a profile only where the cube worked, and round-trip") {
    json vector_only = sample_result();
    for (const char* pipe : {"mte1", "cube", "fixpipe"}) {
      CAPTURE(pipe);
      CHECK_FALSE(vector_only.at("profile").contains(pipe));
    }
    aopt::npu::eval_result r = sample_result();
    r.profile.mte1 = {2.0, 0.16};
    r.profile.cube = {6.0, 0.48};
    r.profile.fixpipe = {1.5, 0.12};
    json j = r;
    CHECK(j.at("profile").at("cube").at("ratio") == 0.48);
    auto back = j.get<aopt::npu::eval_result>();
    CHECK(back.profile.mte1.time_us == 2.0);
    CHECK(back.profile.cube.ratio == 0.48);
    CHECK(back.profile.fixpipe.time_us == 1.5);
    CHECK(json(back) == j);
  }

  TEST_CASE("a partial result keeps defaults for the absent keys") {
    auto r = json::parse(R"({"status": "runtime_error", "error_kind": "ub_overflow"})")
                 .get<aopt::npu::eval_result>();
    CHECK(r.status == aopt::npu::eval_status::runtime_error);
    CHECK(r.error_kind == "ub_overflow");
    CHECK(r.latency_us == 0);
    CHECK(r.diagnostics.empty());
  }

  TEST_CASE("an unknown status is rejected") {
    CHECK_THROWS(json::parse(R"({"status": "fine"})").get<aopt::npu::eval_result>());
    aopt::npu::eval_status s{};
    CHECK(aopt::npu::parse_eval_status("timeout", s));
    CHECK(s == aopt::npu::eval_status::timeout);
    CHECK_FALSE(aopt::npu::parse_eval_status("fine", s));
    CHECK(std::string(aopt::npu::to_string(aopt::npu::eval_status::infra_error)) == "infra_error");
  }
}
