#include "agent/heuristics/heuristic_diagnoser.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "agent/bank/bm25_retriever.hpp"
#include "agent/motifs/bottleneck_phrases.hpp"
#include "agent/motifs/rewind_rules.hpp"
#include "kernel_snippets.hpp"

using namespace aopt;
using namespace aopt::agent;
using aopt::agent::testing::kBarrierKernel;
using aopt::agent::testing::kQueueKernel;

namespace {

bool has(const heuristic_diagnosis& d, const std::string& tag) {
  return std::find(d.tags.begin(), d.tags.end(), tag) != d.tags.end();
}

// A healthy double-buffered elementwise profile on 40 cores.
npu::eval_result healthy() {
  npu::eval_result r;
  r.status = npu::eval_status::ok;
  r.latency_us = 30;
  auto& p = r.profile;
  p.mte2 = {20, 0.8};
  p.vector = {10, 0.4};
  p.mte3 = {10, 0.4};
  p.scalar = {1, 0.03};
  p.block_dim = 40;
  p.ub_high_water_bytes = 150000;
  p.ub_capacity_bytes = 196608;
  p.gm_read_bytes = 2000000;
  p.gm_write_bytes = 1000000;
  p.dma_bursts = 40 * 12;
  p.mean_burst_bytes = 32768;
  p.core_time_max_us = 25;
  p.core_time_mean_us = 24;
  p.launch_overhead_us = 5;
  p.vector_instructions = 1000;
  r.roof.achieved_fraction = 0.5;
  return r;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a healthy memory-bound profile is diagnosed as MTE2 bound only") {
    heuristic_diagnoser d;
    npu::eval_result r = healthy();
    heuristic_diagnosis out = d.diagnose({&r, kQueueKernel, 3000000, 3});
    CHECK(out.tags == std::vector<std::string>{"mte2_bound"});
    CHECK(out.query == bottleneck_phrase("mte2_bound"));
    REQUIRE(out.evidence.size() == 1);
    CHECK(out.evidence[0].find("MTE2 busy 80%") != std::string::npos);
    CHECK(out.as_diagnosis().tags == out.tags);
  }

  TEST_CASE("each profile signal raises its tag") {
    heuristic_diagnoser d;
    SUBCASE("serialized pipes") {
      npu::eval_result r = healthy();
      r.profile.mte2 = {10, 0.45};
      r.profile.vector = {6, 0.3};
      r.profile.mte3 = {6, 0.3};
      CHECK(has(d.diagnose({&r, "", 0, 0}), "no_overlap"));
    }
    SUBCASE("scalar share") {
      npu::eval_result r = healthy();
      r.profile.scalar = {10, 0.4};
      CHECK(has(d.diagnose({&r, "", 0, 0}), "scalar_heavy"));
    }
    SUBCASE("barrier stall") {
      npu::eval_result r = healthy();
      r.profile.barrier_stall_us = 5;
      CHECK(has(d.diagnose({&r, "", 0, 0}), "barrier_stall"));
    }
    SUBCASE("few cores and imbalance") {
      npu::eval_result r = healthy();
      r.profile.block_dim = 8;
      r.profile.core_time_mean_us = 15;
      heuristic_diagnosis out = d.diagnose({&r, "", 0, 0});
      CHECK(has(out, "core_underuse"));
      CHECK(has(out, "core_imbalance"));
    }
    SUBCASE("small bursts and small tiles") {
      npu::eval_result r = healthy();
      r.profile.mean_burst_bytes = 1024;
      r.profile.dma_bursts = 40 * 100;
      r.profile.ub_high_water_bytes = 8192;
      heuristic_diagnosis out = d.diagnose({&r, "", 0, 3});
      CHECK(has(out, "small_bursts"));
      CHECK(has(out, "ub_underuse"));
    }
    SUBCASE("launch overhead, GM round trips and the roofline") {
      npu::eval_result r = healthy();
      r.profile.launch_overhead_us = 20;
      r.roof.achieved_fraction = 0.9;
      heuristic_diagnosis out = d.diagnose({&r, "", 1000000, 0});
      CHECK(has(out, "launch_bound"));
      CHECK(has(out, "extra_gm_traffic"));
      CHECK(has(out, "near_roofline"));
    }
  }

  // A matmul core: MTE2 brings operands to L1, MTE1 moves them to L0, the cube multiplies and the
  // fixpipe writes c out; no vector work.
  TEST_CASE("the cube's pipes are diagnosed like the vector unit's") {
    heuristic_diagnoser d;
    npu::eval_result r = healthy();
    r.profile.vector = {0, 0};
    r.profile.mte3 = {0, 0};
    r.profile.mte2 = {5, 0.2};
    r.profile.mte1 = {8, 0.32};
    r.profile.fixpipe = {3, 0.12};
    SUBCASE("the busiest pipe names the bound") {
      r.profile.cube = {20, 0.8};
      heuristic_diagnosis out = d.diagnose({&r, "", 0, 0});
      CHECK(has(out, "cube_bound"));
      CHECK_FALSE(has(out, "mte2_bound"));
      CHECK(out.query.find(bottleneck_phrase("cube_bound")) != std::string::npos);
      r.profile.cube = {4, 0.16};
      r.profile.fixpipe = {18, 0.72};
      CHECK(has(d.diagnose({&r, "", 0, 0}), "fixpipe_bound"));
    }
    SUBCASE("pipes that overlap are no serialization: the cube's count in the sum") {
      r.profile.cube = {15, 0.6};  // 0.2 + 0.32 + 0.6 + 0.12 = 1.24, over overlap_sum
      CHECK_FALSE(has(d.diagnose({&r, "", 0, 0}), "no_overlap"));
      r.profile.cube = {4, 0.16};  // 0.2 + 0.18 + 0.16 + 0.12 = 0.66
      r.profile.mte1 = {4.5, 0.18};
      heuristic_diagnosis serial = d.diagnose({&r, "", 0, 0});
      REQUIRE(has(serial, "no_overlap"));
      const auto evidence =
          std::find_if(serial.evidence.begin(), serial.evidence.end(),
                       [](const std::string& e) { return e.rfind("no_overlap", 0) == 0; });
      REQUIRE(evidence != serial.evidence.end());
      CHECK(evidence->find("MTE1+cube+FIX") != std::string::npos);
    }
  }

  TEST_CASE("static signals of the kernel text count without a profile") {
    heuristic_diagnoser d;
    heuristic_diagnosis out = d.diagnose({nullptr, kBarrierKernel, 0, 0});
    CHECK(out.tags == std::vector<std::string>{"barrier_stall"});
    kernel_signals s = read_kernel_signals(kBarrierKernel);
    CHECK(s.full_barriers_in_loops == 3);
    CHECK(s.data_copies == 2);

    result<std::string> scalar = find_rewind_rule("vector_to_scalar")->apply(kQueueKernel);
    REQUIRE(scalar.ok());
    kernel_signals t = read_kernel_signals(*scalar);
    CHECK(t.scalar_accesses_in_loops == 2);
    CHECK(has(d.diagnose({nullptr, *scalar, 0, 0}), "scalar_heavy"));

    result<std::string> single = find_rewind_rule("double_to_single_buffer")->apply(kQueueKernel);
    REQUIRE(single.ok());
    CHECK(read_kernel_signals(*single).single_buffer_queues == 4);
    CHECK(has(d.diagnose({nullptr, *single, 0, 0}), "no_overlap"));
  }

  TEST_CASE("tags come in priority order and the query uses the shared phrases") {
    heuristic_diagnoser d;
    npu::eval_result r = healthy();
    r.profile.scalar = {10, 0.4};
    r.profile.barrier_stall_us = 5;
    heuristic_diagnosis out = d.diagnose({&r, "", 0, 0});
    REQUIRE(out.tags.size() >= 3);
    CHECK(out.tags[0] == "scalar_heavy");
    CHECK(out.tags[1] == "barrier_stall");
    CHECK(out.query == bottleneck_text(out.tags));
  }

  TEST_CASE("the diagnosis of a rewound kernel retrieves the rule's tuple first") {
    bm25_retriever bank;
    for (const kernel_rule& rule : rewind_rules()) {
      experience_tuple t;
      t.id = rule.name;
      t.title = rule.title;
      t.bottleneck = rule.bottleneck;
      bank.add(t);
    }
    heuristic_diagnoser d;
    for (const char* rule : {"vector_to_scalar", "add_full_barriers", "double_to_single_buffer"}) {
      CAPTURE(rule);
      result<std::string> slow = find_rewind_rule(rule)->apply(kQueueKernel);
      REQUIRE(slow.ok());
      heuristic_diagnosis diag = d.diagnose({nullptr, *slow, 0, 0});
      std::vector<retrieval_hit> hits = bank.top_k(diag.query, 3);
      REQUIRE_FALSE(hits.empty());
      bool found = std::any_of(hits.begin(), hits.end(),
                               [&](const retrieval_hit& h) { return h.id == rule; });
      CHECK(found);
    }
  }

}  // TEST_SUITE
