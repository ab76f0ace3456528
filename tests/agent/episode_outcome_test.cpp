// Issue 16 at the level of the episode engine: baseline repair, loud annotation errors and the
// reason every operator ends with. Policies and the device are scripted.
#include <doctest/doctest.h>

#include <functional>
#include <map>

#include "agent/episode/campaign_metrics.hpp"
#include "agent/episode/episode.hpp"
#include "agent/episode/outcome_reason.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

npu::eval_result ok_result(double latency) {
  npu::eval_result r;
  r.status = npu::eval_status::ok;
  r.latency_us = latency;
  r.roof.bound_us = 10;
  r.roof.achieved_fraction = 10 / latency;
  return r;
}

npu::eval_result failed(const std::string& kind) {
  npu::eval_result r;
  r.status = npu::eval_status::runtime_error;
  r.error_kind = kind;
  r.message = "InitBuffer: 393216 bytes exceed the UB";
  return r;
}

npu::op_package test_op() {
  npu::op_package op;
  op.spec.name = "toy";
  op.host_source = "T0";
  op.kernel_source = "K0";
  return op;
}

// Runs the episode: mutations are T1, T2, ... (or `mutation_error` when set), every kernel
// refinement is "K0+r", evaluations come from `evaluate`.
struct world {
  std::function<npu::eval_result(const std::string&, const std::string&)> evaluate;
  std::optional<status> mutation_error;
  std::map<std::string, uint32_t> rejected_per_mutation;  // what the policy kept from the device
  bool mutation_requested_repair = false;
  int mutations = 0;

  void run(episode_engine& e) {
    for (int i = 0; i < 1000; ++i) {
      episode_action a = e.next();
      if (std::holds_alternative<episode_finished>(a)) return;
      if (auto* m = std::get_if<need_mutation>(&a)) {
        if (m->request.repairing) mutation_requested_repair = true;
        if (mutation_error) {
          e.on_mutation(*mutation_error, "scripted-mutator");
          continue;
        }
        mutation_reply r;
        r.tiling = "T" + std::to_string(++mutations);
        r.origin = "scripted";
        r.rejected = rejected_per_mutation;
        e.on_mutation(r, "scripted-mutator");
      } else if (std::get_if<need_diagnosis>(&a)) {
        e.on_diagnosis(diagnosis{"mte2 bound", {"mte2_bound"}});
      } else if (std::get_if<need_retrieval>(&a)) {
        e.on_retrieval(std::vector<tuple_ref>{});
      } else if (std::get_if<need_refinement>(&a)) {
        e.on_refinement(failed_precondition("no tuple matched the diagnosis"), "scripted-refiner");
      } else if (auto* ev = std::get_if<need_evaluation>(&a)) {
        e.on_evaluation(evaluate(ev->request.tiling, ev->request.kernel));
      }
    }
    FAIL("episode did not finish");
  }
};

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a baseline whose tiling overflows the UB is repaired, then improved on") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage1;
    cfg.budget = 5;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    world w;
    // T1 still overflows; T2 is the first feasible tiling (50 us); T3.. are faster.
    w.evaluate = [](const std::string& t, const std::string&) {
      if (t == "T0" || t == "T1") return failed("ub_overflow");
      return ok_result(t == "T2" ? 50 : 40);
    };
    w.run(e);
    const episode_state& s = e.state();
    CHECK(w.mutation_requested_repair);
    CHECK(s.phase == episode_phase::done);
    CHECK(s.candidates == 5);
    CHECK(s.repaired_from.rfind("ub_overflow: InitBuffer", 0) == 0);
    CHECK(s.baseline_us == doctest::Approx(50));
    CHECK(s.best_us == doctest::Approx(40));
    CHECK(s.baseline_roof_fraction == doctest::Approx(0.2));
    CHECK(s.failure.empty());
    const std::string reason = outcome_reason(s);
    CHECK(reason.rfind("improved; baseline repaired from ub_overflow", 0) == 0);
  }

  TEST_CASE("a repair that finds no feasible tiling fails the operator and says so") {
    npu::op_package op = test_op();
    episode_config cfg;  // alternating: the repair ignores Stage I's 5-step allowance
    cfg.budget = 7;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    world w;
    w.evaluate = [](const std::string&, const std::string&) { return failed("bad_block_dim"); };
    w.run(e);
    const episode_state& s = e.state();
    CHECK(s.phase == episode_phase::failed);
    CHECK(s.candidates == 7);
    CHECK(s.failure.find("baseline runtime_error") == 0);
    CHECK(s.failure.find("repair found no feasible tiling in 7 candidates (the budget ran out)") !=
          std::string::npos);
    CHECK(outcome_reason(s) == s.failure);
  }

  TEST_CASE("a failure no tiling can fix is not repaired") {
    npu::op_package op = test_op();
    episode_engine e(op, initial_episode_state("c", op, episode_config{}));
    world w;
    w.evaluate = [](const std::string&, const std::string&) { return failed("mismatch"); };
    w.run(e);
    CHECK(e.state().phase == episode_phase::failed);
    CHECK(e.state().candidates == 0);
    CHECK(e.state().repaired_from.empty());
  }

  TEST_CASE("unreadable annotations are recorded on the operator, and Stage II still runs") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.budget = 10;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    world w;
    w.mutation_error = unreadable_input(
        "op_host/toy.cpp: line 3: TILE: cannot read domain 'between 1 and 4'; expected a domain "
        "like 1..40");
    w.evaluate = [](const std::string&, const std::string&) { return ok_result(20); };
    w.run(e);
    const episode_state& s = e.state();
    CHECK(s.phase == episode_phase::done);
    CHECK(s.candidates == 0);
    REQUIRE(s.notes.count("stage1_error") == 1);
    CHECK(s.notes.at("stage1_error").find("op_host/toy.cpp: line 3") == 0);
    CHECK(s.notes.at("stage2") == "no tuple matched the diagnosis");
    const std::string reason = outcome_reason(s);
    CHECK(reason.find("error: op_host/toy.cpp: line 3: TILE: cannot read domain") == 0);
    CHECK(reason.find("Stage II: no tuple matched the diagnosis") != std::string::npos);
    CHECK(reason.find("no candidate was evaluated") != std::string::npos);
  }

  TEST_CASE("an unusable mutator answer costs the step whatever the policy is called") {
    // Only unreadable_input (the operator's annotations) ends Stage I for free; the policy's
    // name plays no part (an "llm" in it or not).
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage1;
    cfg.budget = 3;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    world w;
    w.mutation_error =
        invalid_argument("unchanged: the answer leaves the tiling program as it was");
    w.evaluate = [](const std::string&, const std::string&) { return ok_result(20); };
    w.run(e);
    const episode_state& s = e.state();
    CHECK(s.phase == episode_phase::done);
    CHECK(s.candidates == 3);
    CHECK(s.failures.at("policy_failure") == 3);
    CHECK(s.notes.count("stage1_error") == 0);
  }

  TEST_CASE("an improved operator still shows what was rejected before the device") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage1;
    cfg.budget = 2;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    world w;
    w.rejected_per_mutation = {{"ub_overflow (probe)", 2}};
    w.evaluate = [](const std::string& t, const std::string&) {
      return ok_result(t == "T0" ? 20 : 10);
    };
    w.run(e);
    CHECK(outcome_reason(e.state()) ==
          "improved; 4 rejected before the device (ub_overflow (probe) 4)");
  }

  TEST_CASE("an improved operator whose strategy stopped before its budget says so") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage2;
    cfg.budget = 40;
    episode_state s = initial_episode_state("c", op, cfg);
    s.phase = episode_phase::done;
    s.baseline_us = 20;
    s.best_us = 10;
    s.candidates = 3;
    s.notes["early_stop"] = "stage2 stopped after 3 of 40 evaluations: nothing untried remained";
    CHECK(outcome_reason(s) ==
          "improved; stage2 stopped after 3 of 40 evaluations: nothing untried remained");
  }

  TEST_CASE("an operator that did not improve says why: infeasible candidates, budget spent") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage1;
    cfg.budget = 4;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    world w;
    w.evaluate = [](const std::string& t, const std::string&) {
      return t == "T0" ? ok_result(20) : failed("misaligned");
    };
    w.run(e);
    const std::string reason = outcome_reason(e.state());
    CHECK(reason ==
          "every candidate infeasible (misaligned 4); budget of 4 spent without a faster "
          "candidate; at 50 % of its roofline bound (10 us)");
  }

  TEST_CASE("a best within the measurement's resolution is not an improvement") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage1;
    cfg.budget = 12;
    episode_state s = initial_episode_state("c", op, cfg);
    s.phase = episode_phase::done;
    s.baseline_us = 20;
    s.baseline_bound_us = 10;
    s.baseline_roof_fraction = 0.5;
    s.candidates = 12;
    // 1.0003x: the simulator cannot vouch for it.
    s.best_us = 20 / 1.0003;
    CHECK_FALSE(improved_beyond_resolution(s));
    std::string reason = outcome_reason(s);
    CHECK(reason.rfind("not improved: the best is 0.03 % faster than the baseline, within the "
                       "measurement's resolution (0.5 %)",
                       0) == 0);
    CHECK(reason.find("at 50 % of its roofline bound") != std::string::npos);
    CHECK_FALSE(outcome_of(s).improved);
    // Exactly the baseline: not "improved" either.
    s.best_us = 20;
    CHECK(outcome_reason(s).rfind("budget of 12 spent without a faster candidate", 0) == 0);
    // 1.1 % is beyond the resolution.
    s.best_us = 20 / 1.011;
    CHECK(improved_beyond_resolution(s));
    CHECK(outcome_reason(s).rfind("improved", 0) == 0);
    CHECK(outcome_of(s).improved);
    CHECK(compute_metrics({outcome_of(s)}).improved == 1);
  }

  TEST_CASE("a measured best is improved when the paired comparison says faster") {
    npu::op_package op = test_op();
    episode_state s = initial_episode_state("c", op, episode_config{});
    s.phase = episode_phase::done;
    s.baseline_us = 20;
    s.best_us = 19.9;
    s.best_result.measurement.measured = true;
    s.best_result.measurement.median_us = 19.9;
    s.best_result.measurement.iqr_us = 1.0;  // 5 % spread: 0.5 % is noise
    CHECK(improvement_resolution(s) == doctest::Approx(1.0 / 19.9));
    CHECK_FALSE(improved_beyond_resolution(s));
    s.best_result.measurement.verdict = "faster";
    CHECK(improved_beyond_resolution(s));
  }

  TEST_CASE("an operator near its roofline says so before anything else") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.budget = 4;
    episode_state s = initial_episode_state("c", op, cfg);
    s.phase = episode_phase::done;
    s.baseline_us = 10.9;
    s.best_us = 10.9;
    s.baseline_bound_us = 10;
    s.baseline_roof_fraction = 10 / 10.9;
    s.candidates = 4;
    s.failures["misaligned"] = 2;
    const std::string reason = outcome_reason(s);
    CHECK(reason.rfind("at 92 % of its bound: little to gain; 2 of 4 candidates infeasible", 0) ==
          0);
    CHECK(reason.find("roofline bound") == std::string::npos);  // said once
  }
  TEST_CASE("an operator's outcome names its tunables and what Stage II applied, by origin") {
    npu::op_package op = test_op();
    episode_config cfg;
    cfg.strat = strategy::stage2;
    cfg.budget = 3;
    episode_engine e(op, initial_episode_state("c", op, cfg));
    // The refiner offers two rewrites; the first is faster and accepted, the second is not.
    for (int i = 0; i < 100; ++i) {
      episode_action a = e.next();
      if (std::holds_alternative<episode_finished>(a)) break;
      if (std::get_if<need_diagnosis>(&a)) {
        e.on_diagnosis(diagnosis{"mte2 bound", {"mte2_bound"}});
      } else if (std::get_if<need_retrieval>(&a)) {
        e.on_retrieval(std::vector<tuple_ref>{});
      } else if (auto* r = std::get_if<need_refinement>(&a)) {
        std::vector<kernel_candidate> c;
        if (r->request.kernel == "K0") {
          c = {{"K1", "tuple:a+rule:double_buffer", {"a"}}, {"K2", "tuple:b", {"b"}}};
        }
        e.on_refinement(c, "scripted-refiner");
      } else if (auto* ev = std::get_if<need_evaluation>(&a)) {
        e.on_evaluation(ok_result(ev->request.kernel == "K1" ? 10 : 20));
      } else {
        FAIL("unexpected action");
      }
    }
    episode_state s = e.state();
    // The heuristic mutator's template: a synthesized tunable whose note names its expression.
    s.mutator_state = {
        {"base",
         "// EVOLVE-BLOCK-START\nconstexpr uint32_t CORE_COUNT = 40;  // tunable: range "
         "[1, 40]  core count: caps `p.GetCoreNumAiv()`\n// EVOLVE-BLOCK-END\n"}};
    const operator_outcome o = outcome_of(s);
    CHECK(o.stage2_by_origin.at("tuple:a+rule:double_buffer") == 1);
    CHECK(o.stage2_by_origin.at("tuple:b") == 1);
    CHECK(o.accepted_by_origin.at("tuple:a+rule:double_buffer") == 1);
    CHECK(o.accepted_by_origin.count("tuple:b") == 0);
    REQUIRE(o.tunables.size() == 1);
    CHECK(o.tunables[0].name == "CORE_COUNT");
    CHECK(o.tunables[0].value == 40);
    CHECK(o.tunables[0].note.find("GetCoreNumAiv") != std::string::npos);
    // Both survive the episode's storage and reach the report's operator entry.
    result<episode_state> back = episode_state_from_json(nlohmann::json(s));
    REQUIRE(back.ok());
    CHECK(back->stage2_by_origin == s.stage2_by_origin);
    const nlohmann::json j = o;
    CHECK(j["tunables"][0]["name"] == "CORE_COUNT");
    CHECK(j["stage2_by_origin"]["tuple:b"] == 1);
  }
}
