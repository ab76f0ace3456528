// The LLM policies against an OpenAI-compatible stub endpoint on loopback: what they send, how
// they apply the answers, and how endpoint faults and bad answers become classified failures.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "agent/heuristics/heuristic_policies.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "agent/llm_policies/llm_bank.hpp"
#include "agent/llm_policies/llm_diagnoser.hpp"
#include "agent/llm_policies/llm_mutator.hpp"
#include "agent/llm_policies/llm_refiner.hpp"
#include "agent/llm_policies/llm_retriever.hpp"
#include "agent/llm_policies/llm_template.hpp"
#include "config/aopt_config.hpp"
#include "npu/op_package.hpp"
#include "runtime/llm_factory.hpp"
#include "support/openai_stub_server.hpp"

namespace {

namespace agent = aopt::agent;
namespace llm = aopt::llm;
namespace test = aopt::test;

aopt::npu::op_package load_add_custom() {
  auto op = aopt::npu::load_op_package(aopt::config::builtin_config_dir().parent_path() /
                                       "corpus/level1/add_custom");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(*op);
}

struct llm_fixture {
  explicit llm_fixture(std::vector<std::string> extra = {}) : op(load_add_custom()) {
    std::vector<std::string> sets = {"llm.base_url=" + server.base_url(),
                                     "llm.model=stub-model",
                                     "llm.api_key_env=AOPT_TEST_UNSET_KEY",
                                     "llm.backoff_initial_ms=1",
                                     "llm.backoff_max_ms=4",
                                     "llm.max_retries=2",
                                     "llm.timeout_s=5"};
    sets.insert(sets.end(), extra.begin(), extra.end());
    auto cfg = aopt::config::load_config("", sets);
    REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
    auto made = aopt::runtime::make_llm_backend(*cfg, nullptr);
    REQUIRE_MESSAGE(made.ok(), made.error().to_string());
    backend = std::move(*made);
  }

  agent::mutation_request mutation(uint64_t sample = 1) const {
    agent::mutation_request r;
    r.campaign = "c1";
    r.op = &op;
    r.tiling = op.host_source;
    r.kernel = op.kernel_source;
    r.best_latency_us = 41.7;
    r.history = {{op.host_source, 41.7, "baseline"}};
    r.sample_index = sample;
    return r;
  }

  std::string last_user_prompt() const {
    const auto seen = server.received();
    REQUIRE_FALSE(seen.empty());
    const auto& messages = seen.back().body.at("messages");
    return messages.back().at("content").get<std::string>();
  }

  test::openai_stub_server server;
  aopt::npu::op_package op;
  std::shared_ptr<agent::llm_backend> backend;
};

std::string edit(const std::string& search, const std::string& replace) {
  return "<<<<<<< SEARCH\n" + search + "\n=======\n" + replace + "\n>>>>>>> REPLACE\n";
}

const std::string block_dim_8 = "constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]";
const std::string block_dim_40 =
    "constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]";

std::string starts(const aopt::status& s, size_t n) {
  return s.message().substr(0, n);
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("llm mutator applies the model's edit inside the EVOLVE-BLOCK and says it is the LLM") {
    llm_fixture f;
    f.server.script({test::reply("Use all cores.\n" + edit(block_dim_8, block_dim_40))});
    agent::llm_mutator_policy policy(f.backend);
    auto reply = policy.mutate(f.mutation());
    REQUIRE_MESSAGE(reply.ok(), reply.error().to_string());
    CHECK(reply->tiling.find("BLOCK_DIM = 40;") != std::string::npos);
    CHECK(reply->tiling.find("BLOCK_DIM = 8;") == std::string::npos);
    CHECK(reply->origin.rfind("llm-mutator[stub-model]", 0) == 0);
    CHECK(reply->origin.find("BLOCK_DIM=40") != std::string::npos);
    CHECK(policy.name() == "llm-mutator");
    CHECK(f.server.chat_requests() == 1);
    const std::string prompt = f.last_user_prompt();
    CHECK(prompt.find("41.70 us (simulated)") != std::string::npos);
    CHECK(prompt.find("BLOCK_DIM=8, BUFFER_NUM=1, TILE_LENGTH=2048: 41.70 us") !=
          std::string::npos);
    CHECK(prompt.find("\"name\": \"add_custom\"") != std::string::npos);
    CHECK(prompt.find("vector_cores") != std::string::npos);
  }

  TEST_CASE(
      "llm mutator rejects an answer that changes the tiling program outside the EVOLVE-BLOCK") {
    llm_fixture f;
    f.server.script({test::reply(edit("constexpr uint32_t UB_RESERVE = 8 * 1024;",
                                      "constexpr uint32_t UB_RESERVE = 1024;"))});
    agent::llm_mutator_policy policy(f.backend);
    auto reply = policy.mutate(f.mutation());
    REQUIRE_FALSE(reply.ok());
    CHECK(starts(reply.error(), 20) == "outside_evolve_block");
  }

  TEST_CASE("llm mutator classifies an edit that matches nothing and an answer without code") {
    llm_fixture f;
    f.server.script({test::reply(edit("constexpr uint32_t NOT_THERE = 1;", "x")),
                     test::reply("I would raise the block dim.")});
    agent::llm_mutator_policy policy(f.backend);
    auto missing = policy.mutate(f.mutation(1));
    REQUIRE_FALSE(missing.ok());
    CHECK(starts(missing.error(), 16) == "search_not_found");
    auto prose = policy.mutate(f.mutation(2));
    REQUIRE_FALSE(prose.ok());
    CHECK(starts(prose.error(), 7) == "no_code");
  }

  TEST_CASE("llm policies turn endpoint faults into failed steps that name the fault") {
    llm_fixture f;
    f.server.script({test::fault_500(), test::fault_500(), test::fault_500(),
                     test::truncated("<<<<<<< SEARCH\nconstexpr"), test::malformed_body(),
                     test::empty_choices(), test::fault_429(0),
                     test::reply(edit(block_dim_8, block_dim_40))});
    agent::llm_mutator_policy policy(f.backend);
    auto five_hundred = policy.mutate(f.mutation(1));
    REQUIRE_FALSE(five_hundred.ok());
    CHECK(starts(five_hundred.error(), 8) == "http_5xx");
    CHECK(f.server.chat_requests() == 3);  // max_retries = 2

    auto cut = policy.mutate(f.mutation(2));
    REQUIRE_FALSE(cut.ok());
    CHECK(starts(cut.error(), 9) == "truncated");
    auto garbage = policy.mutate(f.mutation(3));
    REQUIRE_FALSE(garbage.ok());
    CHECK(starts(garbage.error(), 14) == "malformed_body");
    auto empty = policy.mutate(f.mutation(4));
    REQUIRE_FALSE(empty.ok());
    CHECK(starts(empty.error(), 12) == "empty_choice");

    auto after_429 = policy.mutate(f.mutation(5));  // retried once, then answered
    REQUIRE_MESSAGE(after_429.ok(), after_429.error().to_string());
    CHECK(f.server.chat_requests() == 8);
  }

  TEST_CASE("a spent token budget ends the stage without calling the endpoint again") {
    llm_fixture f({"llm.budget_tokens=10"});
    f.server.script({test::reply(edit(block_dim_8, block_dim_40), 50, 20)});
    agent::llm_mutator_policy policy(f.backend);
    REQUIRE(policy.mutate(f.mutation(1)).ok());
    auto refused = policy.mutate(f.mutation(2));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code() == aopt::status_code::failed_precondition);
    CHECK(starts(refused.error(), 16) == "budget_exhausted");
    CHECK(f.server.chat_requests() == 1);
  }

  TEST_CASE("llm diagnoser reads the bottleneck and tags from the model's JSON") {
    llm_fixture f;
    f.server.script({test::reply("```json\n{\"bottleneck\": \"MTE2 waits for V: single buffer\", "
                                 "\"tags\": [\"single_buffer\", \"no_overlap\"]}\n```"),
                     test::reply("{\"tags\": [\"mte2_bound\"]}")});
    agent::llm_diagnoser_policy policy(f.backend);
    agent::diagnosis_request request;
    request.campaign = "c1";
    request.op = &f.op;
    request.kernel = f.op.kernel_source;
    request.tiling = f.op.host_source;
    request.result.status = aopt::npu::eval_status::ok;
    request.result.latency_us = 12.5;
    auto d = policy.diagnose(request);
    REQUIRE_MESSAGE(d.ok(), d.error().to_string());
    CHECK(d->query == "MTE2 waits for V: single buffer");
    CHECK(d->tags == std::vector<std::string>{"single_buffer", "no_overlap"});
    CHECK(f.last_user_prompt().find("12.50 us (simulated)") != std::string::npos);

    // Another sample, so the response cache does not replay the first answer.
    request.sample_index = 1;
    auto no_bottleneck = policy.diagnose(request);
    REQUIRE_FALSE(no_bottleneck.ok());
    CHECK(starts(no_bottleneck.error(), 14) == "malformed_json");
  }

  TEST_CASE("llm refiner applies the model's kernel rewrite and names the tuples it was given") {
    llm_fixture f;
    f.server.script({test::reply(
        "Double buffering.\n" +
        edit("        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));",
             "        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(half));"))});
    agent::llm_refiner_policy policy(f.backend);
    agent::refinement_request request;
    request.campaign = "c1";
    request.op = &f.op;
    request.kernel = f.op.kernel_source;
    request.tiling = f.op.host_source;
    request.diag = {"MTE2 and V do not overlap", {"single_buffer"}};
    request.tuples = {{"t1",
                       0.9,
                       {{"title", "Double-buffer the input queues"},
                        {"bottleneck", "single buffer"},
                        {"description", "two slots per queue"},
                        {"code_diff", "-a\n+b\n"}}}};
    auto candidates = policy.refine(request);
    REQUIRE_MESSAGE(candidates.ok(), candidates.error().to_string());
    REQUIRE(candidates->size() == 1);
    CHECK(candidates->front().origin == "llm");
    CHECK(candidates->front().tuple_ids == std::vector<std::string>{"t1"});
    CHECK(candidates->front().kernel.find("InitBuffer(inQueueX, 2,") != std::string::npos);
    const std::string prompt = f.last_user_prompt();
    CHECK(prompt.find("Double-buffer the input queues") != std::string::npos);
    CHECK(prompt.find("Tags: single_buffer") != std::string::npos);
  }

  TEST_CASE("llm template synthesis marks the tunables of a T once, then the inner mutator runs") {
    llm_fixture f;
    // T without its EVOLVE-BLOCK: the markers and annotations removed.
    std::string plain = f.op.host_source;
    for (const std::string marker :
         {"// EVOLVE-BLOCK-START\n", "// EVOLVE-BLOCK-END\n", "       // tunable: range [1, 40]",
          "  // tunable: pow2 [256, 32768]", "      // tunable: choice {1, 2}"}) {
      const size_t at = plain.find(marker);
      REQUIRE_MESSAGE(at != std::string::npos, marker);
      plain.erase(at, marker.size());
    }
    f.server.script({test::reply("```cpp\n" + f.op.host_source + "```\n")});

    agent::heuristic_mutator_policy_options options;
    options.mutator.seed = 7;
    auto inner = std::make_shared<agent::heuristic_mutator_policy>(options);
    agent::llm_template_mutator_policy policy(f.backend, inner);
    CHECK(policy.name() == "heuristic-mutator+llm-template");

    agent::mutation_request request = f.mutation();
    request.tiling = plain;
    request.history = {{plain, 41.7, "baseline"}};
    auto first = policy.mutate(request);
    REQUIRE_MESSAGE(first.ok(), first.error().to_string());
    CHECK(first->tiling.find("// EVOLVE-BLOCK-START") != std::string::npos);
    CHECK(first->origin.find("heuristic-mutator") == 0);
    CHECK(first->origin.find("(template: llm)") != std::string::npos);
    CHECK(f.server.chat_requests() == 1);

    request.policy_state = first->policy_state;
    request.sample_index = 2;
    auto second = policy.mutate(request);
    REQUIRE_MESSAGE(second.ok(), second.error().to_string());
    CHECK(f.server.chat_requests() == 1);  // the template came from the policy state
    CHECK(second->tiling != first->tiling);
  }

  TEST_CASE("llm template synthesis refuses an answer without an EVOLVE-BLOCK") {
    llm_fixture f;
    f.server.script({test::reply("```cpp\nint main() { return 0; }\n```")});
    auto made =
        agent::llm_synthesize_template(*f.backend, {"c1", "add_custom", "template"}, f.op,
                                       "int tiling() { return 8; }\n", f.op.kernel_source, 0);
    REQUIRE_FALSE(made.ok());
    CHECK(starts(made.error(), 12) == "bad_template");
  }

  TEST_CASE("llm rewind step removes one motif and distillation turns the pair into a tuple") {
    llm_fixture f;
    const std::string slow = "        pipe.InitBuffer(inQueueX, 1, tileLength * sizeof(half));";
    const std::string fast =
        "        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));";
    f.server.script(
        {test::reply(
             "```json\n{\"motif\": \"double buffering\", \"description\": \"one slot\"}\n```\n" +
             edit(fast, slow)),
         test::reply(
             "{\"title\": \"Double-buffer the input queue\", \"description\": \"two slots\", "
             "\"bottleneck\": \"MTE2 serialised with V\", \"tags\": [\"single_buffer\"], "
             "\"category\": \"pipelining\"}")});

    agent::llm_rewind_request rewind;
    rewind.campaign = "bank";
    rewind.op = &f.op;
    rewind.kernel = f.op.kernel_source;
    auto step = agent::llm_rewind_step(*f.backend, rewind);
    REQUIRE_MESSAGE(step.ok(), step.error().to_string());
    CHECK(step->motif == "double buffering");
    CHECK(step->kernel.find(slow) != std::string::npos);
    CHECK(f.last_user_prompt().find("none") != std::string::npos);

    agent::llm_distill_request distill;
    distill.campaign = "bank";
    distill.op = &f.op;
    distill.slow_kernel = step->kernel;
    distill.fast_kernel = f.op.kernel_source;
    distill.slow_result.latency_us = 20;
    distill.fast_result.latency_us = 15;
    auto tuple = agent::llm_distill(*f.backend, distill);
    REQUIRE_MESSAGE(tuple.ok(), tuple.error().to_string());
    CHECK(tuple->title == "Double-buffer the input queue");
    CHECK(tuple->bottleneck == "MTE2 serialised with V");
    CHECK(tuple->category == "pipelining");
    CHECK(tuple->tags == std::vector<std::string>{"single_buffer"});
    CHECK(tuple->code_diff.find("+" + fast) != std::string::npos);
    CHECK(tuple->provenance.policy == "llm-distill");
    CHECK(tuple->provenance.latency_before_us == 20);
    CHECK(tuple->id == agent::derive_tuple_id(*tuple));
  }

  TEST_CASE("dense retrieval ranks the tuple whose bottleneck is nearest the query first") {
    llm_fixture f({"llm.embedding_model=stub-embed"});
    agent::experience_tuple a, b;
    a.id = "a";
    a.bottleneck = "vector unit idle while scalar loop reads values one by one";
    a.code_diff = "-x\n+y\n";
    b.id = "b";
    b.bottleneck = "single buffer queue serialises mte2 copy and vector compute";
    b.code_diff = "-x\n+z\n";
    agent::llm_embedding_retriever_policy policy(f.backend, {a, b}, "c-dense");
    auto top =
        policy.retrieve({"mte2 copy and vector compute serialised by a single buffer", {}}, 1);
    REQUIRE_MESSAGE(top.ok(), top.error().to_string());
    REQUIRE(top->size() == 1);
    CHECK(top->front().id == "b");
    CHECK(top->front().tuple.at("bottleneck") == b.bottleneck);
    CHECK(f.server.embedding_requests() == 2);  // the bank once, then the query
    REQUIRE(policy.retrieve({"scalar loop", {}}, 2).ok());
    CHECK(f.server.embedding_requests() == 3);
    // Embedding calls are accounted to the campaign the policy serves.
    CHECK(f.backend->ledger().entries().at({"c-dense", "", "retriever"}).calls == 3);
  }

  TEST_CASE("the backend's token ledger matches the usage the endpoint reported") {
    llm_fixture f;
    f.server.script({test::reply(edit(block_dim_8, block_dim_40), 120, 30),
                     test::truncated("<<<<<<< SEARCH", 100, 8192),
                     test::reply("{\"bottleneck\": \"mte2\"}", 90, 12)});
    agent::llm_mutator_policy mutator(f.backend);
    agent::llm_diagnoser_policy diagnoser(f.backend);
    REQUIRE(mutator.mutate(f.mutation(1)).ok());
    REQUIRE_FALSE(mutator.mutate(f.mutation(2)).ok());
    agent::diagnosis_request d;
    d.campaign = "c1";
    d.op = &f.op;
    REQUIRE(diagnoser.diagnose(d).ok());

    const llm::token_ledger ledger = f.backend->ledger();
    const test::stub_usage reported = f.server.reported_usage();
    CHECK(reported.prompt_tokens == 310);
    CHECK(ledger.total().billed.prompt_tokens == reported.prompt_tokens);
    CHECK(ledger.total().billed.completion_tokens == reported.completion_tokens);
    const llm::ledger_entry& m = ledger.entries().at({"c1", "add_custom", "mutator"});
    CHECK(m.calls == 1);
    CHECK(m.failures == 1);
    CHECK(m.billed.completion_tokens == 30 + 8192);
    CHECK(ledger.entries().at({"c1", "add_custom", "diagnoser"}).billed.prompt_tokens == 90);
    CHECK(f.backend->usage_report().find("c1/add_custom/mutator: 1 calls") != std::string::npos);
  }

}  // TEST_SUITE
