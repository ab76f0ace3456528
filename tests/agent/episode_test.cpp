#include "agent/episode/episode.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "agent/episode/outcome_reason.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

// Scripted stand-ins for the policies: the episode engine is pure logic and is tested here
// against synthetic evaluation results; the real policies and the simulator are exercised by
// the integration tests.
struct scripted_world {
  // Latency of a candidate as a function of its tiling and kernel text.
  std::function<npu::eval_result(const std::string&, const std::string&)> evaluate;
  int mutations = 0;
  int refinements = 0;
  bool refiner_has_nothing = false;
  int mutations_available = -1;  // -1: the mutator always has a new tiling
  // Tilings the mutator proposes first, one per request, before its own new ones (T1, T2, ...).
  std::vector<std::string> proposals_first;
  // Tuples the bank holds: a retrieval returns min(top_k, bank_size) of them, and the refiner
  // then proposes one kernel per retrieved tuple (instead of two numbered ones).
  int bank_size = -1;
  // The rewind rule each retrieved tuple records as its provenance; empty: none recorded.
  std::string tuple_rule;
  uint32_t deepest_retrieval = 0;
  int stop_after = -1;  // evaluations after which run() returns (an interrupted process)
  int evaluations = 0;
  // The verifiers' answers (episode_config::verifiers), by role; unset: the episode must not ask.
  std::function<result<verification_reply>(const std::string&, const verification_request&)> verify;
  int verifications = 0;        // verifier calls about a fresh result (moment evaluation)
  int final_verifications = 0;  // rounds of verifiers asked about the final best

  // Asks the roles in turn, each with the result the one before it left, as the episode actor does.
  std::vector<role_answer<verification_reply>> ask_verifiers(const episode_engine& e,
                                                             const need_verification& need) {
    REQUIRE_MESSAGE(verify, "the episode asked verifiers it should not have");
    std::vector<role_answer<verification_reply>> answers;
    verification_request request = need.request;
    for (const std::string& role : need.roles) {
      auto state = e.state().role_states.find(role);
      request.role_state = state == e.state().role_states.end() ? nlohmann::json() : state->second;
      answers.push_back({role, verify(role, request)});
      if (answers.back().answer.ok()) request.result = answers.back().answer->result;
    }
    return answers;
  }
  std::vector<candidate_record> records;

  void run(episode_engine& e, int max_actions = 1000) {
    for (int i = 0; i < max_actions; ++i) {
      episode_action a = e.next();
      if (std::holds_alternative<episode_finished>(a)) return;
      if (std::holds_alternative<need_mutation>(a) && mutations == mutations_available) {
        if (auto rec = e.on_mutation(failed_precondition("no untried tiling"), "scripted-mutator"))
          records.push_back(*rec);
      } else if (auto* m = std::get_if<need_mutation>(&a)) {
        mutation_reply r;
        int n = m->request.policy_state.is_null() ? 0 : m->request.policy_state.get<int>();
        ++mutations;
        const size_t first = proposals_first.size();
        r.tiling = static_cast<size_t>(n) < first ? proposals_first[n]
                                                  : "T" + std::to_string(n + 1 - first);
        r.policy_state = n + 1;
        r.origin = "scripted";
        if (auto rec = e.on_mutation(r, "scripted-mutator")) records.push_back(*rec);
      } else if (auto* d = std::get_if<need_diagnosis>(&a)) {
        (void)d;
        if (auto rec = e.on_diagnosis(diagnosis{"mte2 bound", {"mte2_bound"}}))
          records.push_back(*rec);
      } else if (auto* q = std::get_if<need_retrieval>(&a)) {
        std::vector<tuple_ref> tuples;
        deepest_retrieval = std::max(deepest_retrieval, q->top_k);
        for (int k = 0; k < bank_size && k < static_cast<int>(q->top_k); ++k) {
          nlohmann::json tuple{{"title", "Optimization " + std::to_string(k % 2)}};
          if (!tuple_rule.empty()) tuple["provenance"] = {{"rule", tuple_rule}};
          tuples.push_back({"t" + std::to_string(k), 1.0, tuple});
        }
        e.on_retrieval(tuples);
      } else if (auto* r = std::get_if<need_refinement>(&a)) {
        std::vector<kernel_candidate> ks;
        if (refiner_has_nothing) {
          // no rewrite, whatever was retrieved
        } else if (bank_size >= 0) {
          for (const tuple_ref& t : r->request.tuples) {
            ks.push_back({r->request.kernel + "+" + t.id, "tuple:" + t.id, {t.id}});
          }
        } else {
          for (int k = 0; k < 2; ++k) {
            ks.push_back({r->request.kernel + "+K" + std::to_string(++refinements), "rule:x", {}});
          }
        }
        if (auto rec = e.on_refinement(ks, "scripted-refiner")) records.push_back(*rec);
      } else if (auto* ev = std::get_if<need_evaluation>(&a)) {
        npu::eval_result r = evaluate(ev->request.tiling, ev->request.kernel);
        if (std::optional<need_verification> need = e.verification_of(r)) {
          ++verifications;
          r = e.verified_result(r, ask_verifiers(e, *need));
        }
        records.push_back(e.on_evaluation(r));
        if (++evaluations == stop_after) return;
      } else if (auto* v = std::get_if<need_verification>(&a)) {
        CHECK(v->request.moment == verification_moment::final);
        ++final_verifications;
        e.on_final_verification(ask_verifiers(e, *v));
      }
    }
    FAIL("episode did not finish");
  }
};

npu::eval_result episode_ok_result(double latency) {
  npu::eval_result r;
  r.status = npu::eval_status::ok;
  r.latency_us = latency;
  return r;
}

// The baseline tiling T0 runs in `baseline` us, every mutated tiling in `mutated` us.
std::function<npu::eval_result(const std::string&, const std::string&)> tiling_latency(
    double baseline, double mutated) {
  return [=](const std::string& t, const std::string&) {
    return episode_ok_result(t == "T0" ? baseline : mutated);
  };
}

npu::op_package episode_test_op() {
  npu::op_package op;
  op.spec.name = "toy";
  op.host_source = "T0";
  op.kernel_source = "K0";
  return op;
}

// Evaluated candidates per (round, stage), the baseline left out.
std::map<std::pair<uint32_t, int>, int> steps_by_round(
    const std::vector<candidate_record>& records) {
  std::map<std::pair<uint32_t, int>, int> out;
  for (const candidate_record& c : records) {
    if (c.stage != 0) out[{c.round, c.stage}]++;
  }
  return out;
}

// Each refined kernel (one '+' per rewrite) is `per_rewrite` us faster than the kernel it came
// from, from the evaluation numbered `from` on (0 = the baseline's); every mutated tiling runs in
// 90 us, the baseline tiling in 100 us.
std::function<npu::eval_result(const std::string&, const std::string&)> kernels_pay_from(
    int from, double per_rewrite) {
  auto calls = std::make_shared<int>(0);
  return [=](const std::string& t, const std::string& k) {
    const int n = (*calls)++;
    const auto rewrites = std::count(k.begin(), k.end(), '+');
    const double kernel_gain = n >= from ? per_rewrite * static_cast<double>(rewrites) : 0;
    return episode_ok_result((t == "T0" ? 100 : 90) - kernel_gain);
  };
}

// A world whose bank always holds untried tuples, so Stage II never runs out of rewrites.
scripted_world deep_bank_world(int pays_from) {
  scripted_world w;
  w.bank_size = 64;
  w.evaluate = kernels_pay_from(pays_from, 1);
  return w;
}

}  // namespace

TEST_CASE(
    "episode spends exactly the budget with alternating stages and keeps only faster candidates") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.budget = 8;
  cfg.rounds = 2;
  cfg.stage1_steps = 2;
  cfg.stage2_steps = 2;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  // Every new tiling is 1 us faster; refined kernels are slower, except "+K1".
  w.evaluate = [](const std::string& t, const std::string& k) {
    double lat = 100 - (t == "T0" ? 0 : std::stoi(t.substr(1)));
    if (k.find("+K1") != std::string::npos)
      lat -= 10;
    else if (k != "K0")
      lat += 5;
    return episode_ok_result(lat);
  };
  w.run(e);
  const episode_state& s = e.state();
  CHECK(s.phase == episode_phase::done);
  CHECK(s.candidates == 8);
  CHECK(w.records.size() == 9);  // baseline + 8
  CHECK(s.baseline_us == doctest::Approx(100));
  CHECK(s.best_us < s.baseline_us);
  // Stages alternate: records 1-2 stage 1, 3-4 stage 2, 5-6 stage 1, 7-8 stage 2.
  CHECK(w.records[1].stage == 1);
  CHECK(w.records[3].stage == 2);
  CHECK(w.records[5].stage == 1);
  CHECK(w.records[5].round == 1);
  CHECK(w.records[7].stage == 2);
  for (const candidate_record& r : w.records) {
    if (r.accepted && r.role != "baseline") CHECK(r.result.latency_us < 100);
  }
  CHECK(s.trajectory.size() == 9);
}

TEST_CASE("an infeasible candidate is never kept however fast it claims to be") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage1;
  cfg.budget = 3;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.evaluate = [](const std::string& t, const std::string&) {
    if (t == "T2") {
      npu::eval_result r = episode_ok_result(1);
      r.status = npu::eval_status::precision_error;
      r.error_kind = "mismatch";
      return r;
    }
    return episode_ok_result(t == "T0" ? 50 : 60);
  };
  w.run(e);
  CHECK(e.state().best_us == doctest::Approx(50));
  CHECK(e.state().best_tiling == "T0");
  CHECK(e.state().failures.at("mismatch") == 1);
}

TEST_CASE("stage2 with a refiner that has nothing ends early without spending budget") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage2;
  cfg.budget = 10;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.refiner_has_nothing = true;
  w.evaluate = [](const std::string&, const std::string&) { return episode_ok_result(10); };
  w.run(e);
  CHECK(e.state().phase == episode_phase::done);
  CHECK(e.state().candidates == 0);
  CHECK(w.mutations == 0);
  // The reason says there was no rewrite, not that every rewrite was tried.
  const std::string stage2 = e.state().notes.at("stage2");
  CHECK_MESSAGE(stage2.rfind("the refiner had no kernel rewrite for the diagnosis", 0) == 0,
                stage2);
  CHECK(outcome_reason(e.state()).find("was tried") == std::string::npos);
}

TEST_CASE(
    "stage2 without a rewrite names the retrieved motifs the kernel lacks and their structure") {
  npu::op_package op = episode_test_op();
  op.kernel_source =
      "for (int32_t k = 0; k < n; k++) {\n    pos.SetValue(k, k);\n}\nLocalTensor<int32_t> pos;\n";
  episode_config cfg;
  cfg.strat = strategy::stage2;
  cfg.budget = 10;
  scripted_world w;
  w.refiner_has_nothing = true;
  w.bank_size = 1;
  w.tuple_rule = "double_to_single_buffer";
  w.evaluate = [](const std::string&, const std::string&) { return episode_ok_result(10); };
  episode_engine e(op, initial_episode_state("c", op, cfg));
  w.run(e);
  const std::string stage2 = e.state().notes.at("stage2");
  CHECK_MESSAGE(stage2.find("motifs tried: double_buffering; not found in this kernel: "
                            "double_buffering, which looks for a queue (TQue, TQueBind) whose "
                            "InitBuffer takes one buffer or a runtime count") != std::string::npos,
                stage2);
  // A motif whose structure the kernel has is named as tried, not as missing.
  scripted_world w2 = w;
  w2.tuple_rule = "index_fill_to_scalar_loop";
  episode_engine e2(op, initial_episode_state("c", op, cfg));
  w2.run(e2);
  const std::string found = e2.state().notes.at("stage2");
  CHECK_MESSAGE(found.find("(motifs tried: vector_index_fill)") != std::string::npos, found);
  CHECK(found.find("not found") == std::string::npos);
}

TEST_CASE("a tiling already evaluated costs no budget, and the mutator is asked again") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage1;
  cfg.budget = 6;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.proposals_first = {"T0", "T0"};  // the baseline's tiling, with the baseline's kernel
  w.evaluate = tiling_latency(100, 90);
  w.run(e);
  CHECK(e.state().phase == episode_phase::done);
  CHECK(e.state().candidates == 6);  // the whole budget went to new tilings
  CHECK(e.state().failures.count("policy_failure") == 0);
  CHECK(e.state().rejected.at("already evaluated") == 2);
  // The mutator's state kept the repeated proposals: its next ones were new.
  CHECK(e.state().mutator_state.get<int>() == 8);
  CHECK(outcome_reason(e.state()).find("already evaluated 2") != std::string::npos);
}

TEST_CASE("a mutator that proposes only tilings already evaluated ends its stage, not the budget") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage1;
  cfg.budget = 20;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.proposals_first = std::vector<std::string>(100, "T0");
  w.evaluate = tiling_latency(100, 90);
  w.run(e);
  CHECK(e.state().phase == episode_phase::done);
  CHECK(e.state().candidates == 0);
  CHECK(e.state().rejected.at("already evaluated") == episode_engine::max_repeated_proposals);
  const std::string stage1 = e.state().notes.at("stage1");
  CHECK_MESSAGE(stage1.find("only tilings already evaluated") != std::string::npos, stage1);
}

TEST_CASE("steps a stage leaves unspent go to the other stage, so alternating spends the budget") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.budget = 12;
  cfg.rounds = 2;
  cfg.stage1_steps = 3;
  cfg.stage2_steps = 3;
  cfg.stage2_adaptive = false;  // the rounds' shares stay as configured: only the carry moves steps
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.refiner_has_nothing = true;
  w.evaluate = tiling_latency(100, 90);
  w.run(e);
  CHECK(e.state().phase == episode_phase::done);
  CHECK(e.state().candidates == 12);
  REQUIRE(w.records.size() == 13);
  // Round 1: 3 planned Stage I steps; round 2: 3 + the 3 Stage II left; then one more Stage I
  // after the last round with round 2's Stage II steps.
  CHECK(w.records[3].round == 0);
  CHECK(w.records[4].round == 1);
  CHECK(w.records[9].round == 1);
  CHECK(w.records[10].round == 2);
  for (size_t i = 1; i < w.records.size(); ++i) CHECK(w.records[i].stage == 1);
}

TEST_CASE("a round whose Stage II found nothing faster halves its next share for Stage I") {
  npu::op_package op = episode_test_op();
  episode_config cfg;  // budget 40, 4 rounds of 5 + 5
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w = deep_bank_world(1000);  // no rewrite ever pays
  w.run(e);
  CHECK(e.state().candidates == 40);
  const auto steps = steps_by_round(w.records);
  CHECK(steps.at({0, 1}) == 5);
  CHECK(steps.at({0, 2}) == 5);
  CHECK(steps.at({1, 1}) == 8);
  CHECK(steps.at({1, 2}) == 2);
  CHECK(steps.at({2, 1}) == 9);
  CHECK(steps.at({2, 2}) == 1);
  CHECK(steps.at({3, 1}) == 9);
  CHECK(steps.at({3, 2}) == 1);
  // The operator says where Stage II's steps went (rounds numbered from 1).
  CHECK(e.state().notes.at("stage2_share") ==
        "Stage II found nothing faster in round 2, so round 3 gives it 1 of 5 steps");
  CHECK(outcome_reason(e.state()).find("so round 3 gives it 1 of 5 steps") != std::string::npos);
}

TEST_CASE("a round whose Stage II improved the best restores its share") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  // Rounds 0 and 1 (evaluations 1..20) pay nothing; round 2 is 9 Stage I steps and the one
  // Stage II step left, evaluation 30, which pays.
  scripted_world w = deep_bank_world(30);
  w.run(e);
  CHECK(e.state().candidates == 40);
  const auto steps = steps_by_round(w.records);
  CHECK(steps.at({1, 2}) == 2);
  CHECK(steps.at({2, 1}) == 9);
  CHECK(steps.at({2, 2}) == 1);
  CHECK(steps.at({3, 1}) == 5);
  CHECK(steps.at({3, 2}) == 5);
  CHECK(e.state().best_kernel != "K0");
  CHECK(e.state().notes.at("stage2_share") ==
        "Stage II improved the best in round 3, so round 4 gives it 5 of 5 steps");
}

TEST_CASE("a fixed schedule gives Stage II its S steps in every round, found something or not") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.stage2_adaptive = false;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w = deep_bank_world(1000);
  w.run(e);
  const auto steps = steps_by_round(w.records);
  for (uint32_t round = 0; round < 4; ++round) {
    CHECK(steps.at({round, 1}) == 5);
    CHECK(steps.at({round, 2}) == 5);
  }
}

TEST_CASE("Stage II's share survives a restart") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  episode_engine whole(op, initial_episode_state("c", op, cfg));
  scripted_world w1 = deep_bank_world(1000);
  w1.run(whole);

  // Interrupted in round 2's Stage I, after Stage II's share fell to 1 for it.
  episode_engine first(op, initial_episode_state("c", op, cfg));
  scripted_world w2 = deep_bank_world(1000);
  w2.stop_after = 23;
  w2.run(first);
  REQUIRE(first.state().round == 2);
  result<episode_state> restored = episode_state_from_json(nlohmann::json(first.state()));
  REQUIRE(restored.ok());
  CHECK(restored->stage2_share == 1);
  episode_engine second(op, *restored);
  scripted_world w3 = deep_bank_world(1000);
  w3.mutations = restored->mutator_state.get<int>();
  w3.records = w2.records;
  w3.run(second);
  CHECK(second.state().candidates == 40);
  CHECK(steps_by_round(w3.records) == steps_by_round(w1.records));
}

TEST_CASE("an alternating episode ends when neither stage has anything left to propose") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.budget = 40;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.refiner_has_nothing = true;
  w.mutations_available = 7;
  w.evaluate = tiling_latency(100, 90);
  w.run(e);
  CHECK(e.state().phase == episode_phase::done);
  CHECK(e.state().candidates == 7);
  CHECK(w.records.size() == 8);
}

TEST_CASE("unspent steps are not carried into a stage the configuration turned off") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.budget = 10;
  cfg.rounds = 2;
  cfg.stage1_steps = 5;
  cfg.stage2_steps = 0;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.mutations_available = 3;
  w.evaluate = [](const std::string&, const std::string&) { return episode_ok_result(50); };
  w.run(e);
  CHECK(e.state().phase == episode_phase::done);
  CHECK(e.state().candidates == 3);
  CHECK(w.refinements == 0);
}

TEST_CASE("a failed baseline fails the episode with its reason") {
  npu::op_package op = episode_test_op();
  episode_engine e(op, initial_episode_state("c", op, episode_config{}));
  scripted_world w;
  w.evaluate = [](const std::string&, const std::string&) {
    npu::eval_result r;
    r.status = npu::eval_status::compile_error;
    r.message = "expected ';'";
    return r;
  };
  w.run(e);
  CHECK(e.state().phase == episode_phase::failed);
  CHECK(e.state().failure.find("compile_error") != std::string::npos);
}

TEST_CASE("a baseline killed at the wall-clock limit is evaluated again on resume") {
  npu::op_package op = episode_test_op();
  episode_config config;
  config.budget = 2;
  config.strat = strategy::stage1;
  episode_engine first(op, initial_episode_state("c", op, config));
  scripted_world starved;
  starved.evaluate = [](const std::string&, const std::string&) {
    npu::eval_result r;
    r.status = npu::eval_status::timeout;
    r.error_kind = "wall_clock";
    return r;
  };
  starved.run(first);
  REQUIRE(first.state().phase == episode_phase::failed);
  REQUIRE(starved.records.size() == 1);

  episode_state restored = first.state();
  REQUIRE(reopen_transient_baseline_failure(restored, starved.records.back().result));
  CHECK(restored.failure.empty());
  episode_engine resumed(op, restored);
  scripted_world idle;
  idle.evaluate = tiling_latency(100, 80);
  idle.run(resumed);
  CHECK(resumed.state().phase == episode_phase::done);
  CHECK(resumed.state().baseline_us == 100);
  CHECK(resumed.state().candidates == 2);
  REQUIRE(idle.records.size() == 3);
  CHECK(idle.records.front().role == "baseline");
  CHECK(idle.records.front().seq == 1);
}

TEST_CASE("a baseline that fails by its own fault stays failed on resume") {
  episode_state failed;
  failed.phase = episode_phase::failed;
  failed.failure = "baseline timeout: over the CPU-time limit";
  npu::eval_result r;
  r.status = npu::eval_status::timeout;
  r.error_kind = "cpu_time";
  CHECK_FALSE(reopen_transient_baseline_failure(failed, r));
  r.status = npu::eval_status::compile_error;
  r.error_kind.clear();
  CHECK_FALSE(reopen_transient_baseline_failure(failed, r));
  CHECK(failed.phase == episode_phase::failed);

  episode_state done;
  done.phase = episode_phase::done;
  r.status = npu::eval_status::infra_error;
  CHECK_FALSE(reopen_transient_baseline_failure(done, r));
  CHECK(done.phase == episode_phase::done);
}

TEST_CASE("a resumed episode continues exactly like an uninterrupted one") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.budget = 7;
  cfg.rounds = 2;
  cfg.stage1_steps = 2;
  cfg.stage2_steps = 2;
  auto eval = [](const std::string& t, const std::string& k) {
    double lat =
        100 - (t == "T0" ? 0 : std::stoi(t.substr(1)) % 3) + static_cast<double>(k.size() % 5);
    return episode_ok_result(lat);
  };
  episode_engine whole(op, initial_episode_state("c", op, cfg));
  scripted_world w1;
  w1.evaluate = eval;
  w1.run(whole);

  // Interrupted run: stop after four evaluations, persist through JSON, continue in a new engine.
  episode_engine first(op, initial_episode_state("c", op, cfg));
  scripted_world w2;
  w2.evaluate = eval;
  int evaluations = 0;
  while (evaluations < 4) {
    episode_action a = first.next();
    if (auto* ev = std::get_if<need_evaluation>(&a)) {
      w2.records.push_back(first.on_evaluation(eval(ev->request.tiling, ev->request.kernel)));
      ++evaluations;
    } else if (std::get_if<need_mutation>(&a)) {
      mutation_reply r;
      r.tiling = "T" + std::to_string(++w2.mutations);
      r.policy_state = w2.mutations;
      (void)first.on_mutation(r, "scripted-mutator");
    } else if (std::get_if<need_diagnosis>(&a)) {
      (void)first.on_diagnosis(diagnosis{"q", {}});
    } else if (std::get_if<need_retrieval>(&a)) {
      first.on_retrieval(std::vector<tuple_ref>{});
    } else if (auto* r = std::get_if<need_refinement>(&a)) {
      std::vector<kernel_candidate> ks;
      for (int k = 0; k < 2; ++k)
        ks.push_back({r->request.kernel + "+K" + std::to_string(++w2.refinements), "rule:x", {}});
      (void)first.on_refinement(ks, "scripted-refiner");
    }
  }
  nlohmann::json saved = first.state();
  result<episode_state> restored = episode_state_from_json(saved);
  REQUIRE(restored.ok());
  episode_engine second(op, *restored);
  // The scripted mutator numbers its proposals from the persisted policy state, as a real
  // deterministic policy does; the refiner restarts its numbering like a fresh process would.
  scripted_world w3;
  w3.evaluate = eval;
  w3.mutations = restored->mutator_state.is_null() ? 0 : restored->mutator_state.get<int>();
  w3.refinements = 0;
  w3.run(second);
  CHECK(second.state().candidates == whole.state().candidates);
  CHECK(second.state().phase == episode_phase::done);
  CHECK(nlohmann::json(second.state().trajectory.size()) ==
        nlohmann::json(whole.state().trajectory.size()));
}

TEST_CASE("a result's verifiers hear whether it would become the best") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage1;
  cfg.budget = 3;
  cfg.verifiers = {"improvement_confirmation"};
  episode_engine e(op, initial_episode_state("c", op, cfg));
  const auto would_accept = [&e, &cfg](const npu::eval_result& r) {
    std::optional<need_verification> need = e.verification_of(r);
    REQUIRE(need.has_value());
    CHECK(need->roles == cfg.verifiers);
    CHECK(need->request.moment == verification_moment::evaluation);
    return need->request.would_accept;
  };
  CHECK(e.verification_of(episode_ok_result(1))->request.role == "baseline");
  CHECK_FALSE(would_accept(episode_ok_result(1)));  // the baseline is never confirmed
  e.on_evaluation(episode_ok_result(10));
  mutation_reply m;
  m.tiling = "T1";
  e.on_mutation(m, "scripted-mutator");
  REQUIRE(std::holds_alternative<need_evaluation>(e.next()));
  CHECK(e.verification_of(episode_ok_result(9))->request.tiling == "T1");
  CHECK(would_accept(episode_ok_result(9)));
  CHECK_FALSE(would_accept(episode_ok_result(10)));
  npu::eval_result failed;
  failed.status = npu::eval_status::runtime_error;
  failed.latency_us = 1;
  CHECK_FALSE(would_accept(failed));
  cfg.verifiers.clear();
  episode_engine unverified(op, initial_episode_state("c", op, cfg));
  CHECK_FALSE(unverified.verification_of(episode_ok_result(1)).has_value());
}

namespace {

npu::op_package validated_op() {
  npu::op_package op = episode_test_op();
  op.spec.validation_shapes = {{{"x", {4, 16}}}, {{"x", {2, 16}}}};
  return op;
}

// A verifier of the final best that fails it on its second check, as the validation role does on
// a validation shape (agent/roles/validation_role.cpp, tested with its evaluations in
// tests/agent/verifier_roles_test.cpp).
result<verification_reply> fails_second_shape(const std::string& role,
                                              const verification_request& request) {
  verification_reply reply;
  reply.result = request.result;
  if (role == "validation" && request.moment == verification_moment::final) {
    reply.result.status = npu::eval_status::runtime_error;
    reply.result.error_kind = "gm_out_of_bounds";
    reply.result.message =
        "validation shape 1 (x [2, 16]): runtime_error/gm_out_of_bounds: DataCopy past z";
  }
  return reply;
}

// A Stage I episode over `op` at `budget` (the baseline tiling T0 at 10 us, every other at 5 us)
// asking `verifiers`, each answered by `verify`: the world it ran in, and its final state.
struct verified_run {
  scripted_world world;
  episode_state state;
};

verified_run run_verified(
    const npu::op_package& op, uint32_t budget, std::vector<std::string> verifiers,
    std::function<result<verification_reply>(const std::string&, const verification_request&)>
        verify) {
  episode_config cfg;
  cfg.strat = strategy::stage1;
  cfg.budget = budget;
  cfg.verifiers = std::move(verifiers);
  episode_engine e(op, initial_episode_state("c", op, cfg));
  verified_run run;
  run.world.evaluate = tiling_latency(10, 5);
  run.world.verify = std::move(verify);
  run.world.run(e);
  CHECK(e.finished());
  run.state = e.state();
  return run;
}

}  // namespace

TEST_CASE("a best that fails a verifier is not reported: the reference point is") {
  const npu::op_package op = validated_op();
  std::vector<std::string> verified_tilings;
  const verified_run run = run_verified(
      op, 3, {"validation"}, [&](const std::string& role, const verification_request& request) {
        if (request.moment == verification_moment::final)
          verified_tilings.push_back(request.tiling);
        return fails_second_shape(role, request);
      });
  const episode_state& s = run.state;
  CHECK(run.world.final_verifications == 1);
  CHECK(verified_tilings == std::vector<std::string>{"T1"});  // the first of the equally fast
  CHECK(s.phase == episode_phase::done);
  CHECK(s.best_verified);
  CHECK(s.best_us == 10);
  CHECK(s.best_tiling == "T0");
  CHECK(s.best_seq == s.baseline_seq);
  CHECK(s.best_result.latency_us == 10);
  const std::string& why = s.notes.at("validation_failed");
  CHECK(why.find("the best (candidate #1, 5 us) failed validation shape 1 (x [2, 16]): "
                 "runtime_error/gm_out_of_bounds: DataCopy past z; the reference (10 us) is "
                 "reported instead") != std::string::npos);
  CHECK(outcome_reason(s).find("not improved: the best (candidate #1") != std::string::npos);
}

TEST_CASE("a verifier that fails to answer about the final best leaves the reference reported") {
  const verified_run run =
      run_verified(validated_op(), 2, {"validation"},
                   [](const std::string& role,
                      const verification_request& request) -> result<verification_reply> {
                     if (request.moment == verification_moment::final)
                       return unavailable("device pool is down");
                     return fails_second_shape(role, request);
                   });
  CHECK(run.state.best_us == 10);
  CHECK(run.state.notes.at("validation_failed").find("could not be verified by validation") !=
        std::string::npos);
}

TEST_CASE("a best that passes its verifiers is reported, with what each established") {
  const verified_run run =
      run_verified(validated_op(), 2, {"improvement_confirmation", "validation"},
                   [](const std::string& role, const verification_request& request) {
                     verification_reply reply;
                     reply.result = request.result;
                     if (role == "validation" && request.moment == verification_moment::final)
                       reply.note = "the best passed 2 validation shape(s) the tuning never saw";
                     return result<verification_reply>(reply);
                   });
  CHECK(run.world.final_verifications == 1);
  CHECK(run.world.verifications == 3);  // the baseline and both candidates
  CHECK(run.state.best_us == 5);
  CHECK(run.state.notes.count("improvement_confirmation") == 0);
  CHECK(outcome_reason(run.state).find("passed 2 validation shape(s)") != std::string::npos);
}

TEST_CASE("verifiers amend a fresh result in turn, and the engine takes the last one's") {
  std::vector<double> seen_by_second;
  std::vector<bool> would_accept;
  const verified_run run = run_verified(
      episode_test_op(), 2, {"slower", "second"},
      [&](const std::string& role, const verification_request& request) {
        verification_reply reply;
        reply.result = request.result;
        reply.role_state = request.role_state.is_null() ? 1 : request.role_state.get<int>() + 1;
        if (role == "slower" && request.moment == verification_moment::evaluation) {
          would_accept.push_back(request.would_accept);
          reply.result.latency_us += 1;  // a second run that was slower: the slower one counts
        }
        if (role == "second") seen_by_second.push_back(request.result.latency_us);
        return result<verification_reply>(reply);
      });
  const episode_state& s = run.state;
  CHECK(seen_by_second == std::vector<double>{11, 6, 6, 6});  // baseline, T1, T2, final best
  // T2's 5 us would beat the best's confirmed 6 us; amended to 6 us, it does not.
  CHECK(would_accept == std::vector<bool>{false, true, true});
  CHECK(s.baseline_us == 11);
  CHECK(s.best_us == 6);
  CHECK(s.role_states.at("slower") == 4);
  CHECK(s.role_states.at("second") == 4);
}

TEST_CASE("a verifier that fails to answer about a fresh result makes it an infra_error") {
  const verified_run run = run_verified(
      episode_test_op(), 2, {"flaky"},
      [](const std::string&, const verification_request& request) -> result<verification_reply> {
        if (request.role == "baseline") return verification_reply{request.result, "", {}, nullptr};
        return unavailable("the cold run's slot was lost");
      });
  CHECK(run.state.best_us == 10);  // neither candidate was taken
  CHECK(run.state.failures.at("verifier_failure") == 2);
  const std::vector<candidate_record>& records = run.world.records;
  REQUIRE(records.size() == 3);
  CHECK(records[1].result.status == npu::eval_status::infra_error);
  CHECK(records[1].result.message.find("flaky could not verify the result (ok, 5 us)") !=
        std::string::npos);
}

TEST_CASE("a state written before the verifiers asks the confirmation and the validation") {
  npu::op_package op = validated_op();
  episode_config cfg;
  nlohmann::json old = initial_episode_state("c", op, cfg);
  old["state_version"] = 3;
  old["config"].erase("verifiers");
  old.erase("best_verified");
  old["notes"]["validation"] = "the best passed 2 validation shape(s) the tuning never saw";
  result<episode_state> migrated = episode_state_from_json(old);
  REQUIRE(migrated.ok());
  const std::vector<std::string> verifiers = {"improvement_confirmation", "validation"};
  CHECK(migrated->config.verifiers == verifiers);
  CHECK(migrated->best_verified);
  old["notes"].erase("validation");
  CHECK_FALSE(episode_state_from_json(old)->best_verified);
  result<episode_state> again = episode_state_from_json(nlohmann::json(*migrated));
  REQUIRE(again.ok());
  CHECK(again->config.verifiers == verifiers);
  CHECK(again->best_verified);
}

TEST_CASE("a best that is still the reference point needs no validation") {
  npu::op_package op = validated_op();
  episode_config cfg;
  cfg.strat = strategy::stage1;
  cfg.budget = 2;
  cfg.verifiers = {"validation"};
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.evaluate = tiling_latency(10, 12);  // no candidate is faster
  w.verify = fails_second_shape;
  w.run(e);
  CHECK(e.finished());
  CHECK(w.final_verifications == 0);
  CHECK(e.state().notes.count("validation_failed") == 0);
}

namespace {

npu::eval_result failed_result() {
  npu::eval_result r;
  r.status = npu::eval_status::precision_error;
  return r;
}

// stage2 at budget 10, top-k 3, over a bank of `bank_size` tuples whose rewrites are all slower
// (so the first diagnosis stays and only deeper retrievals add tuples), or all incorrect (so
// none joins the kernel frontier either).
episode_state stage2_over_bank(int bank_size, scripted_world& w, bool rewrites_correct = true) {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage2;
  cfg.budget = 10;
  cfg.top_k = 3;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  w.bank_size = bank_size;
  w.evaluate = [rewrites_correct](const std::string&, const std::string& k) {
    if (k == "K0") return episode_ok_result(10);
    return rewrites_correct ? episode_ok_result(11) : failed_result();
  };
  w.run(e);
  return e.state();
}

}  // namespace

TEST_CASE("stage2 retrieves deeper when every candidate was tried, so it spends its budget") {
  scripted_world w;
  const episode_state s = stage2_over_bank(12, w);
  CHECK(s.candidates == 10);
  CHECK(w.deepest_retrieval == 12);
  CHECK(s.notes.count("early_stop") == 0);
}

TEST_CASE("stage2 that runs out of untried candidates says so and how much it spent") {
  scripted_world w;
  const episode_state s = stage2_over_bank(4, w, /*rewrites_correct=*/false);
  CHECK(s.candidates == 4);
  REQUIRE(s.notes.count("early_stop") == 1);
  CHECK(s.notes.at("early_stop").find("stage2 stopped after 4 of 10 evaluations") == 0);
  CHECK(s.notes.at("stage2").find("from the 4 tuple(s) retrieved") != std::string::npos);
  // What was tried, each optimization once.
  CHECK(s.notes.at("stage2").find("(optimizations tried: Optimization 0; Optimization 1)") !=
        std::string::npos);
  CHECK(s.notes.at("stage2").find("no kernel of the frontier is left to refine (1 refined)") !=
        std::string::npos);
}

TEST_CASE("stage2 refines the fastest correct rewrite when the best has none left untried") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage2;
  cfg.budget = 10;
  cfg.top_k = 3;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  w.bank_size = 2;
  // t0 alone is slower than the baseline, t1 alone slower still; t1 on top of t0 pays.
  w.evaluate = [](const std::string&, const std::string& k) {
    if (k == "K0") return episode_ok_result(10);
    if (k == "K0+t0") return episode_ok_result(11);
    if (k == "K0+t0+t1") return episode_ok_result(8);
    return episode_ok_result(12);
  };
  w.run(e);
  const episode_state& s = e.state();
  CHECK(s.candidates == 10);
  CHECK(s.notes.count("early_stop") == 0);
  CHECK(s.best_kernel == "K0+t0+t1");
  CHECK(s.best_us == doctest::Approx(8));
  // Records: baseline, K0+t0, K0+t1, then the frontier's fastest (K0+t0) is the parent.
  REQUIRE(w.records.size() >= 4);
  CHECK(w.records[3].kernel.rfind("K0+t0+", 0) == 0);
  CHECK(w.records[3].parent_seq == static_cast<int64_t>(w.records[1].seq));
}

TEST_CASE("a resumed stage2 episode continues from the same frontier kernel") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::stage2;
  cfg.budget = 9;
  cfg.top_k = 2;
  auto eval = [](const std::string&, const std::string& k) {
    return episode_ok_result(k == "K0" ? 10 : 10 + static_cast<double>(k.size() % 7));
  };
  episode_engine whole(op, initial_episode_state("c", op, cfg));
  scripted_world w1;
  w1.bank_size = 2;
  w1.evaluate = eval;
  w1.run(whole);

  episode_engine first(op, initial_episode_state("c", op, cfg));
  scripted_world w2;
  w2.bank_size = 2;
  w2.evaluate = eval;
  w2.stop_after = 5;  // past the best's two rewrites: the parent is a frontier kernel
  w2.run(first);
  result<episode_state> restored = episode_state_from_json(nlohmann::json(first.state()));
  REQUIRE(restored.ok());
  episode_engine second(op, *restored);
  scripted_world w3;
  w3.bank_size = 2;
  w3.evaluate = eval;
  w3.run(second);

  std::vector<std::string> resumed;
  for (const candidate_record& r : w2.records) resumed.push_back(r.kernel);
  for (const candidate_record& r : w3.records) resumed.push_back(r.kernel);
  std::vector<std::string> uninterrupted;
  for (const candidate_record& r : w1.records) uninterrupted.push_back(r.kernel);
  CHECK(second.state().candidates == 9);
  CHECK(resumed == uninterrupted);
}

TEST_CASE("evolve varies T and K of parents from its program database and spends the budget") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::evolve;
  cfg.budget = 12;
  episode_engine e(op, initial_episode_state("c", op, cfg));
  scripted_world w;
  // Every new tiling and every refined kernel is faster: improvements compose over T and K.
  w.evaluate = [](const std::string& t, const std::string& k) {
    const double lat = 100 - (t == "T0" ? 0 : 1) - 2.0 * static_cast<double>(k.size() - 2) / 3;
    return episode_ok_result(lat);
  };
  w.run(e);
  const episode_state& s = e.state();
  CHECK(s.phase == episode_phase::done);
  CHECK(s.candidates == 12);
  REQUIRE(w.records.size() == 13);
  std::set<int64_t> seqs;
  for (size_t i = 1; i < w.records.size(); ++i) {
    // Even steps mutate T, odd steps refine K; each names a parent evaluated before it.
    CHECK(w.records[i].stage == (i % 2 == 1 ? 1 : 2));
    CHECK(w.records[i].role == (i % 2 == 1 ? "mutator" : "refiner"));
    seqs.insert(static_cast<int64_t>(w.records[i - 1].seq));
    CHECK(seqs.count(w.records[i].parent_seq) == 1);
  }
  // The best combines a mutated tiling with a refined kernel.
  CHECK(s.best_tiling != "T0");
  CHECK(s.best_kernel != "K0");
  result<program_database> db = program_database::load(s.programs);
  REQUIRE(db.ok());
  CHECK(db->size() >= 3);
}

TEST_CASE("a resumed evolve episode draws the same parents as an uninterrupted one") {
  npu::op_package op = episode_test_op();
  episode_config cfg;
  cfg.strat = strategy::evolve;
  cfg.budget = 9;
  auto eval = [](const std::string& t, const std::string& k) {
    return episode_ok_result(100 - (t == "T0" ? 0 : std::stoi(t.substr(1)) % 4) -
                             static_cast<double>(k.size() % 5));
  };
  episode_engine whole(op, initial_episode_state("c", op, cfg));
  scripted_world w1;
  w1.evaluate = eval;
  w1.run(whole);

  episode_engine first(op, initial_episode_state("c", op, cfg));
  scripted_world w2;
  w2.evaluate = eval;
  w2.stop_after = 6;  // the baseline and five steps
  w2.run(first);
  REQUIRE(w2.records.size() == 6);
  nlohmann::json saved = first.state();
  result<episode_state> restored = episode_state_from_json(saved);
  REQUIRE(restored.ok());
  episode_engine second(op, *restored);
  scripted_world w3;
  w3.evaluate = eval;
  w3.mutations = w2.mutations;
  w3.refinements = w2.refinements;
  w3.run(second);
  CHECK(second.state().candidates == whole.state().candidates);
  std::vector<int64_t> parents_whole, parents_resumed;
  for (const candidate_record& r : w1.records) parents_whole.push_back(r.parent_seq);
  for (const auto* rs : {&w2.records, &w3.records}) {
    for (const candidate_record& r : *rs) parents_resumed.push_back(r.parent_seq);
  }
  CHECK(parents_resumed == parents_whole);
  CHECK(second.state().best_us == doctest::Approx(whole.state().best_us));
}
