// The Profiler (agent/roles/profiler_role.cpp): the statement it makes from a profile, and that
// the statement reaches the diagnoser's and the refiner's prompts through an episode.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "agent/episode/episode.hpp"
#include "agent/llm_policies/llm_diagnoser.hpp"
#include "agent/llm_policies/llm_prompt_inputs.hpp"
#include "agent/llm_policies/llm_refiner.hpp"
#include "agent/roles/role_table.hpp"
#include "config/aopt_config.hpp"
#include "npu/op_package.hpp"
#include "runtime/llm_factory.hpp"
#include "support/openai_stub_server.hpp"

namespace {

namespace agent = aopt::agent;

std::shared_ptr<agent::annotator_policy> make_profiler(nlohmann::json settings = nlohmann::json()) {
  const std::vector<agent::role_descriptor> table = agent::role_descriptors();
  const agent::role_descriptor* profiler = agent::find_role(table, "profiler");
  REQUIRE(profiler != nullptr);
  CHECK(profiler->hook == agent::hook_kind::annotate);
  CHECK_FALSE(profiler->has_llm_policy);
  auto checked = agent::check_role_settings(*profiler, settings);
  REQUIRE_MESSAGE(checked.ok(), checked.error().to_string());
  agent::role_environment env;
  env.settings = *checked;
  auto made = profiler->make(env);
  REQUIRE_MESSAGE(made.ok(), made.error().to_string());
  return std::get<std::shared_ptr<agent::annotator_policy>>(*made);
}

// A copy-in-bound profile: MTE2 busy 30 of the core's 40 us, 2 us of launch.
aopt::npu::eval_result mte2_bound() {
  aopt::npu::eval_result r;
  r.status = aopt::npu::eval_status::ok;
  r.latency_us = 42;
  r.profile.core_time_max_us = 40;
  r.profile.mte2 = {30, 0.75};
  r.profile.vector = {12, 0.3};
  r.profile.mte3 = {8, 0.2};
  r.profile.scalar = {2, 0.05};
  r.profile.barrier_stall_us = 4;
  r.roof.bound_us = 14;
  r.roof.memory_bound_us = 12;
  r.roof.achieved_fraction = 14.0 / 42;
  return r;
}

}  // namespace

TEST_SUITE("profiler role") {
  TEST_CASE("the statement names the bounding pipe, the roofline gap and what-if estimates") {
    auto profiler = make_profiler();
    agent::annotation_request request;
    request.result = mte2_bound();
    auto reply = profiler->annotate(request);
    REQUIRE(reply.ok());
    const std::string& text = reply->note.text;
    CHECK_MESSAGE(text.find("bounded by the MTE2 pipe") != std::string::npos, text);
    CHECK(text.find("busy 30 us of the critical core's 40 us (75 %)") != std::string::npos);
    CHECK(text.find("at 33 % of its bound 14 us") != std::string::npos);
    CHECK(text.find("a gap of 28 us") != std::string::npos);
    // MTE2 2x faster: max(15, 12) + 10 us outside the pipes + 2 us launch = 27 us.
    CHECK(text.find("MTE2 2x faster -> ~27 us (-36 %)") != std::string::npos);
    // Perfect overlap: 30 + 2 = 32 us.
    CHECK(text.find("perfect overlap of the pipes -> ~32 us") != std::string::npos);
    CHECK(text.find("simulated") != std::string::npos);
    CHECK(reply->note.tags == std::vector<std::string>{"bound_by_MTE2"});

    // Another bound, another statement; a failed evaluation has none to read.
    aopt::npu::eval_result vector_bound = mte2_bound();
    vector_bound.profile.vector = {35, 0.9};
    request.result = vector_bound;
    CHECK(profiler->annotate(request)->note.text.find("bounded by the V pipe") !=
          std::string::npos);
    request.result.status = aopt::npu::eval_status::precision_error;
    CHECK(profiler->annotate(request)->note.text.find("no profile") != std::string::npos);
  }

  TEST_CASE("its speedup setting is checked") {
    auto three = make_profiler({{"speedup", 3.0}});
    agent::annotation_request request;
    request.result = mte2_bound();
    CHECK(three->annotate(request)->note.text.find("MTE2 3x faster") != std::string::npos);
    const std::vector<agent::role_descriptor> table = agent::role_descriptors();
    agent::role_environment env;
    env.settings = {{"speedup", 0.5}};
    auto refused = agent::find_role(table, "profiler")->make(env);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message().find("roles.profiler.speedup: must be > 1") !=
          std::string::npos);
  }

  TEST_CASE("the statement is in the diagnoser's and the refiner's prompts") {
    aopt::test::openai_stub_server server;
    auto cfg = aopt::config::load_config(
        "", {"llm.base_url=" + server.base_url(), "llm.model=stub-model",
             "llm.api_key_env=AOPT_TEST_UNSET_KEY", "llm.max_retries=0", "llm.timeout_s=5"});
    REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
    auto backend = aopt::runtime::make_llm_backend(*cfg, nullptr);
    REQUIRE_MESSAGE(backend.ok(), backend.error().to_string());
    agent::llm_diagnoser_policy diagnoser(*backend);
    agent::llm_refiner_policy refiner(*backend);
    auto profiler = make_profiler();

    auto op = aopt::npu::load_op_package(aopt::config::builtin_config_dir().parent_path() /
                                         "corpus/level1/add_custom");
    REQUIRE(op.ok());
    agent::episode_config cfg_episode;
    cfg_episode.strat = agent::strategy::stage2;
    cfg_episode.budget = 1;
    cfg_episode.annotators = {"profiler"};
    agent::episode_engine e(*op, agent::initial_episode_state("c", *op, cfg_episode));
    server.script(
        {aopt::test::reply(R"({"bottleneck": "copy-in bound", "tags": ["mte2_bound"]})"),
         aopt::test::reply("```cpp\n" + op->kernel_source + "\n// v2\nstatic int q;\n```")});
    std::string statement;
    int annotations_asked = 0;
    for (int i = 0; i < 50 && !e.finished(); ++i) {
      agent::episode_action a = e.next();
      if (auto* an = std::get_if<agent::need_annotation>(&a)) {
        ++annotations_asked;
        CHECK(an->roles == std::vector<std::string>{"profiler"});
        auto reply = profiler->annotate(an->request);
        REQUIRE(reply.ok());
        statement = reply->note.text;
        e.on_annotations({{"profiler", reply}});
      } else if (auto* d = std::get_if<agent::need_diagnosis>(&a)) {
        REQUIRE(d->request.annotations.size() == 1);
        e.on_diagnosis(diagnoser.diagnose(d->request));
      } else if (std::holds_alternative<agent::need_retrieval>(a)) {
        e.on_retrieval(std::vector<agent::tuple_ref>{});
      } else if (auto* r = std::get_if<agent::need_refinement>(&a)) {
        e.on_refinement(refiner.refine(r->request), "llm");
      } else if (std::holds_alternative<agent::need_evaluation>(a)) {
        e.on_evaluation(mte2_bound());
      } else if (std::holds_alternative<agent::episode_finished>(a)) {
        break;
      }
    }
    CHECK(annotations_asked == 1);
    REQUIRE_FALSE(statement.empty());
    const auto seen = server.received();
    REQUIRE(seen.size() == 2);
    for (const auto& request : seen) {
      const std::string prompt = request.body.at("messages").back().at("content");
      CHECK(prompt.find("What the annotating roles say about this kernel") != std::string::npos);
      CHECK(prompt.find("- profiler: " + statement) != std::string::npos);
    }
  }

  TEST_CASE("without annotators the prompts read exactly as before") {
    CHECK(agent::describe_annotations({}).empty());
  }
}
