// The Critic (agent/roles/critic_role.cpp): its descriptor in the role table, its verdicts on
// honest rewrites of kernels we did not write (../shared/wild, when present) and of our own
// corpus, and, in an episode, that its vetoes cost no budget, are reported in the operator's
// reason and reach the refiner.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "agent/episode/episode.hpp"
#include "agent/episode/outcome_reason.hpp"
#include "agent/roles/role_table.hpp"
#include "config/aopt_config.hpp"
#include "npu/op_package.hpp"
#include "runtime/llm_factory.hpp"
#include "support/openai_stub_server.hpp"

namespace {

namespace agent = aopt::agent;
namespace fs = std::filesystem;

fs::path source_dir() {
  return aopt::config::builtin_config_dir().parent_path();
}

std::shared_ptr<agent::gate_policy> make_critic(nlohmann::json settings = nlohmann::json(),
                                                agent::role_environment env = {}) {
  const std::vector<agent::role_descriptor> table = agent::role_descriptors();
  const agent::role_descriptor* critic = agent::find_role(table, "critic");
  REQUIRE(critic != nullptr);
  auto checked = agent::check_role_settings(*critic, settings);
  REQUIRE_MESSAGE(checked.ok(), checked.error().to_string());
  env.settings = *checked;
  auto made = critic->make(env);
  REQUIRE_MESSAGE(made.ok(), made.error().to_string());
  auto* gate = std::get_if<std::shared_ptr<agent::gate_policy>>(&*made);
  REQUIRE(gate != nullptr);
  return *gate;
}

aopt::npu::op_package load(const fs::path& dir) {
  auto op = aopt::npu::load_op_package(dir);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(*op);
}

agent::gate_request rewrite_of(const std::string& parent, const std::string& kernel) {
  agent::gate_request r;
  r.campaign = "c";
  r.role = "refiner";
  r.origin = "tuple:t1+rule:x";
  r.parent_kernel = parent;
  r.kernel = kernel;
  r.parent_result.status = aopt::npu::eval_status::ok;
  r.parent_result.roof.bound_us = 10;
  r.parent_result.roof.achieved_fraction = 0.4;
  return r;
}

// The kernels the both-ways checks read: every wild kernel when the set is there, and ours.
std::vector<std::string> honest_kernels() {
  std::vector<std::string> out;
  const fs::path wild = (source_dir() / ".." / "shared" / "wild").lexically_normal();
  if (fs::is_directory(wild)) {
    for (const auto& e : fs::directory_iterator(wild)) {
      const fs::path kernel_dir = e.path() / "op_kernel";
      if (!fs::is_directory(kernel_dir)) continue;
      for (const auto& f : fs::directory_iterator(kernel_dir)) {
        if (f.path().extension() != ".cpp") continue;
        std::ifstream in(f.path());
        out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    }
  }
  for (const char* op : {"corpus/level1/add_custom", "corpus/level2/layer_norm_custom"}) {
    if (fs::exists(source_dir() / op)) out.push_back(load(source_dir() / op).kernel_source);
  }
  return out;
}

}  // namespace

TEST_SUITE("critic role") {
  TEST_CASE("the critic is in the role table as a gate with an LLM policy and its own prompt") {
    const std::vector<agent::role_descriptor> table = agent::role_descriptors();
    const agent::role_descriptor* critic = agent::find_role(table, "critic");
    REQUIRE(critic != nullptr);
    CHECK(critic->hook == agent::hook_kind::gate);
    CHECK(critic->has_llm_policy);
    CHECK(critic->prompts == std::vector<std::string>{"critique"});
    CHECK(fs::exists(agent::role_prompts_dir() / "critique.md"));
  }

  TEST_CASE("its settings are checked against its schema, naming the key") {
    const std::vector<agent::role_descriptor> table = agent::role_descriptors();
    const agent::role_descriptor& critic = *agent::find_role(table, "critic");
    auto defaults = agent::check_role_settings(critic, nlohmann::json());
    REQUIRE(defaults.ok());
    CHECK(defaults->at("roofline_fraction").get<double>() == doctest::Approx(0.95));
    auto unknown = agent::check_role_settings(critic, {{"strictness", 3}});
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message().find("roles.critic.strictness: unknown key") !=
          std::string::npos);
    auto wrong = agent::check_role_settings(critic, {{"roofline_fraction", "high"}});
    REQUIRE_FALSE(wrong.ok());
    CHECK(wrong.error().message().find("roles.critic.roofline_fraction: expected a number") !=
          std::string::npos);
    agent::role_environment env;
    env.settings = {{"roofline_fraction", 1.5}};
    CHECK_FALSE(critic.make(env).ok());
  }

  TEST_CASE("a rewrite that changes only comments or layout is vetoed; a real change is not") {
    auto critic = make_critic();
    const std::vector<std::string> kernels = honest_kernels();
    REQUIRE(kernels.size() >= 2);
    for (const std::string& k : kernels) {
      // Comments and layout: the same program.
      std::string cosmetic = "// reviewed\n" + k;
      for (size_t at = cosmetic.find(";\n"); at != std::string::npos;
           at = cosmetic.find(";\n", at + 4)) {
        cosmetic.replace(at, 2, ";  \n");
      }
      auto same = critic->judge(rewrite_of(k, cosmetic));
      REQUIRE(same.ok());
      CHECK_MESSAGE(same->veto, k.substr(0, 200));
      CHECK(same->reason.find("only comments or layout") != std::string::npos);
      CHECK(same->role_state.at("vetoes") == 1);
      // A changed statement: a different program, let through.
      const size_t semicolon = k.rfind(';');
      REQUIRE(semicolon != std::string::npos);
      std::string changed = k;
      changed.insert(semicolon + 1, " (void)0;");
      auto different = critic->judge(rewrite_of(k, changed));
      REQUIRE(different.ok());
      CHECK_FALSE_MESSAGE(different->veto, different->reason);
    }
  }

  TEST_CASE("a parent at its roofline or bound only by launches gets no rewrite; tilings pass") {
    auto critic = make_critic({{"roofline_fraction", 0.9}});
    const std::string k = honest_kernels().back();
    std::string changed = k + "\n static int unused_marker = 0;\n";
    agent::gate_request at_roof = rewrite_of(k, changed);
    at_roof.parent_result.roof.achieved_fraction = 0.93;
    auto v = critic->judge(at_roof);
    REQUIRE(v.ok());
    CHECK(v->veto);
    CHECK(v->reason.find("93 % of its roofline bound") != std::string::npos);

    agent::gate_request launch = rewrite_of(k, changed);
    launch.diag.tags = {"launch_bound"};
    auto l = critic->judge(launch);
    REQUIRE(l.ok());
    CHECK(l->veto);
    CHECK(l->reason.find("launch overhead") != std::string::npos);

    agent::gate_request memory = rewrite_of(k, changed);
    memory.diag.tags = {"mte2_bound", "launch_bound"};
    CHECK_FALSE(critic->judge(memory)->veto);

    agent::gate_request tiling = at_roof;
    tiling.role = "mutator";
    tiling.kernel = k;
    CHECK_FALSE(critic->judge(tiling)->veto);
  }

  TEST_CASE("in an episode, vetoes cost no budget, reach the refiner and the operator's reason") {
    const aopt::npu::op_package op = load(source_dir() / "corpus/level1/add_custom");
    agent::episode_config cfg;
    cfg.strat = agent::strategy::stage2;
    cfg.budget = 3;
    cfg.gates = {"critic"};
    agent::episode_engine e(op, agent::initial_episode_state("c", op, cfg));
    auto critic = make_critic();
    const std::string k = op.kernel_source;
    int evaluated = 0, refinements = 0, vetoes_heard = 0;
    std::vector<std::string> evaluated_kernels;
    for (int i = 0; i < 200; ++i) {
      agent::episode_action a = e.next();
      if (std::holds_alternative<agent::episode_finished>(a)) break;
      if (std::holds_alternative<agent::need_diagnosis>(a)) {
        e.on_diagnosis(agent::diagnosis{"mte2 bound", {"mte2_bound"}});
      } else if (std::holds_alternative<agent::need_retrieval>(a)) {
        e.on_retrieval(std::vector<agent::tuple_ref>{});
      } else if (auto* r = std::get_if<agent::need_refinement>(&a)) {
        ++refinements;
        vetoes_heard += static_cast<int>(r->request.vetoes.size());
        // First a cosmetic rewrite, then real ones.
        std::vector<agent::kernel_candidate> ks = {
            {"// tidy\n" + r->request.kernel, "rule:cosmetic", {}},
            {r->request.kernel + "\n// v" + std::to_string(refinements) + "\nstatic int k" +
                 std::to_string(refinements) + " = 0;\n",
             "rule:real",
             {}}};
        e.on_refinement(ks, "scripted-refiner");
      } else if (auto* g = std::get_if<agent::need_gate>(&a)) {
        REQUIRE(g->roles == std::vector<std::string>{"critic"});
        agent::gate_request request = g->request;
        auto states = e.state().role_states;
        if (states.count("critic")) request.role_state = states.at("critic");
        e.on_gate({{"critic", critic->judge(request)}});
      } else if (auto* ev = std::get_if<agent::need_evaluation>(&a)) {
        aopt::npu::eval_result r;
        r.status = aopt::npu::eval_status::ok;
        r.latency_us = 100.0 - evaluated;
        r.roof.bound_us = 10;
        r.roof.achieved_fraction = 0.1;
        evaluated_kernels.push_back(ev->request.kernel);
        ++evaluated;
        e.on_evaluation(r);
      } else {
        FAIL("unexpected need");
      }
    }
    REQUIRE(e.finished());
    // The baseline and the budget of 3, none of them cosmetic.
    CHECK(evaluated == 4);
    CHECK(e.state().candidates == 3);
    for (const std::string& kernel : evaluated_kernels) {
      CHECK(kernel.rfind("// tidy", 0) != 0);
    }
    CHECK(e.state().rejected.at("vetoed by critic") >= 2);
    CHECK(e.state().role_states.at("critic").at("vetoes").get<int>() >= 2);
    CHECK(vetoes_heard >= 1);
    const std::string reason = agent::outcome_reason(e.state());
    CHECK_MESSAGE(reason.find("vetoed by critic") != std::string::npos, reason);
    CHECK_MESSAGE(reason.find("only comments or layout") != std::string::npos, reason);
  }

  TEST_CASE("the LLM critic renders its own prompt and follows the model's veto") {
    aopt::test::openai_stub_server server;
    auto cfg = aopt::config::load_config(
        "", {"llm.base_url=" + server.base_url(), "llm.model=stub-model",
             "llm.api_key_env=AOPT_TEST_UNSET_KEY", "llm.max_retries=0", "llm.timeout_s=5",
             "roles.critic.policy=llm", "pipeline.gates=[\"critic\"]"});
    REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
    auto backend = aopt::runtime::make_llm_backend(*cfg, nullptr);
    REQUIRE_MESSAGE(backend.ok(), backend.error().to_string());
    agent::role_environment env;
    env.policy = aopt::config::policy_kind::llm;
    env.llm = *backend;
    auto critic = make_critic(nlohmann::json(), env);
    CHECK(critic->name() == "llm-critic");

    const aopt::npu::op_package op = load(source_dir() / "corpus/level1/add_custom");
    agent::gate_request r =
        rewrite_of(op.kernel_source, op.kernel_source + "\nstatic int z = 0;\n");
    r.op = &op;
    r.diag = {"the copy-in pipe bounds the kernel", {"mte2_bound"}};
    server.script({aopt::test::reply(R"({"veto": true, "reason": "it touches no copy"})"),
                   aopt::test::reply(R"({"veto": false, "reason": ""})")});
    auto first = critic->judge(r);
    REQUIRE_MESSAGE(first.ok(), first.error().to_string());
    CHECK(first->veto);
    CHECK(first->reason == "it touches no copy");
    const auto seen = server.received();
    REQUIRE(seen.size() == 1);
    const std::string prompt = seen.back().body.at("messages").back().at("content");
    CHECK(prompt.find("the copy-in pipe bounds the kernel") != std::string::npos);
    CHECK(prompt.find("## Rewritten kernel") != std::string::npos);
    r.role_state = first->role_state;
    auto second = critic->judge(r);
    REQUIRE(second.ok());
    CHECK_FALSE(second->veto);
    // A cosmetic rewrite is vetoed without asking the model.
    auto cosmetic = critic->judge(rewrite_of(op.kernel_source, "/* x */" + op.kernel_source));
    REQUIRE(cosmetic.ok());
    CHECK(cosmetic->veto);
    CHECK(server.received().size() == 2);
  }
}
