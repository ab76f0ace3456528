// The episode engine driven by the real LLM policies against the stub endpoint (no device: the
// engine only reads an evaluation's status and latency, so the baseline's is given as data).
// Endpoint faults cost the step as a failed candidate that names the fault, and the episode goes
// on; a spent token budget in the diagnoser ends Stage II like a mutator or refiner with nothing
// to propose, without spending candidates.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "agent/episode/episode.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "agent/llm_policies/llm_diagnoser.hpp"
#include "agent/llm_policies/llm_mutator.hpp"
#include "config/aopt_config.hpp"
#include "npu/op_package.hpp"
#include "runtime/llm_factory.hpp"
#include "support/openai_stub_server.hpp"

namespace {

namespace agent = aopt::agent;
namespace test = aopt::test;

std::shared_ptr<agent::llm_backend> make_backend(const test::openai_stub_server& server,
                                                 std::vector<std::string> sets) {
  for (std::string s :
       {"llm.base_url=" + server.base_url(), std::string("llm.model=stub-model"),
        std::string("llm.api_key_env=AOPT_TEST_UNSET_KEY"), std::string("llm.max_retries=0")}) {
    sets.push_back(s);
  }
  auto cfg = aopt::config::load_config("", sets);
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  auto made = aopt::runtime::make_llm_backend(*cfg, nullptr);
  REQUIRE_MESSAGE(made.ok(), made.error().to_string());
  return *made;
}

aopt::npu::op_package add_custom() {
  auto op = aopt::npu::load_op_package(aopt::config::builtin_config_dir().parent_path() /
                                       "corpus/level1/add_custom");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(*op);
}

// The baseline's simulated latency as `aopt eval corpus/level1/add_custom` measured it.
void evaluate_baseline(agent::episode_engine& engine) {
  aopt::npu::eval_result baseline;
  baseline.status = aopt::npu::eval_status::ok;
  baseline.latency_us = 233.94;
  REQUIRE(std::holds_alternative<agent::need_evaluation>(engine.next()));
  engine.on_evaluation(baseline);
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("endpoint faults during an episode are failed candidates naming the fault") {
    test::openai_stub_server server;
    server.script({test::fault_500(), test::fault_429(0), test::malformed_body(),
                   test::truncated("<<<<<<< SEARCH\nconstexpr", 40, 64), test::stall()});
    auto backend = make_backend(server, {"llm.timeout_s=0.5"});
    agent::llm_mutator_policy mutator(backend);
    const aopt::npu::op_package op = add_custom();
    agent::episode_config config;
    config.budget = 5;
    config.rounds = 1;
    config.stage1_steps = 5;
    config.stage2_steps = 0;
    agent::episode_engine engine(op, agent::initial_episode_state("c1", op, config));
    evaluate_baseline(engine);

    std::vector<agent::candidate_record> records;
    while (!engine.finished()) {
      agent::episode_action action = engine.next();
      auto* need = std::get_if<agent::need_mutation>(&action);
      REQUIRE(need != nullptr);
      auto record = engine.on_mutation(mutator.mutate(need->request), mutator.name());
      REQUIRE(record);
      records.push_back(*record);
    }
    const std::vector<std::string> faults = {"http_5xx", "http_429", "malformed_body", "truncated",
                                             "timeout"};
    REQUIRE(records.size() == faults.size());
    for (size_t i = 0; i < faults.size(); ++i) {
      CAPTURE(faults[i]);
      CHECK(records[i].role == "mutator");
      CHECK(records[i].policy == "llm-mutator");
      CHECK_FALSE(records[i].accepted);
      CHECK(records[i].result.error_kind == "policy_failure");
      CHECK(records[i].result.message.rfind("mutator (llm-mutator): ", 0) == 0);
      CHECK(records[i].result.message.find(" " + faults[i] + ": ") != std::string::npos);
    }
    CHECK(engine.state().failures.at("policy_failure") == 5);
    CHECK(engine.state().best_us == 233.94);
    CHECK(server.chat_requests() == 5);  // max_retries = 0: one request per step
  }

  TEST_CASE("a diagnoser whose token budget is spent ends Stage II without spending candidates") {
    test::openai_stub_server server;
    server.script({test::reply("{\"bottleneck\": \"MTE2 waits for V\", \"tags\": []}", 90, 30)});
    auto backend = make_backend(server, {"llm.budget_tokens=100"});
    agent::llm_diagnoser_policy diagnoser(backend);
    const aopt::npu::op_package op = add_custom();
    agent::episode_config config;
    config.budget = 6;
    config.rounds = 2;
    config.stage1_steps = 0;
    config.stage2_steps = 3;
    agent::episode_engine engine(op, agent::initial_episode_state("c1", op, config));
    evaluate_baseline(engine);

    // An earlier diagnosis of the campaign spends the budget (120 of 100 tokens).
    agent::episode_action stage2 = engine.next();
    auto* first = std::get_if<agent::need_diagnosis>(&stage2);
    REQUIRE(first != nullptr);
    REQUIRE(diagnoser.diagnose(first->request).ok());

    std::vector<agent::candidate_record> records;
    int refusals = 0;
    for (int i = 0; i < 20 && !engine.finished(); ++i) {
      agent::episode_action action = engine.next();
      auto* need = std::get_if<agent::need_diagnosis>(&action);
      REQUIRE_MESSAGE(need != nullptr, "the engine asked for something other than a diagnosis");
      auto refused = diagnoser.diagnose(need->request);
      REQUIRE_FALSE(refused.ok());
      CHECK(refused.error().code() == aopt::status_code::failed_precondition);
      ++refusals;
      if (auto record = engine.on_diagnosis(refused)) records.push_back(*record);
    }
    CHECK(engine.finished());
    CHECK(refusals == 2);  // once per round: each refusal ends that round's Stage II
    CHECK(records.empty());
    CHECK(engine.state().candidates == 0);
    CHECK(engine.state().failures.empty());
    CHECK(server.chat_requests() == 1);
    CHECK(backend->gateway().stats().refused_budget == 2);
  }
}
