// Feasibility before the device for every proposer (issue 16), through the episode actor: the
// LLM mutator (the stub endpoint on loopback, real HTTP) proposes an infeasible tiling of
// add_custom (its clamp to the UB removed, a 32768-element double-buffered tile). The gate
// tiling_probe (agent/roles/tiling_probe_role.cpp, built from the role table as a campaign builds
// it) runs the simulator's real tiling probe (g++ build of the host unit, sandboxed run) and
// rejects it: no device evaluation, no budget, counted with its reason, and the reason is in
// the LLM's next prompt; its next, feasible, proposal is evaluated. Without a screen (what
// stage1.probe_tilings = false gives) the same proposal goes to the device.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include "actors/device_pool.hpp"
#include "actors/episode_to_end.hpp"
#include "actors/evaluator.hpp"
#include "actors/hook_role.hpp"
#include "actors/messages.hpp"
#include "actors/recording_journal.hpp"
#include "actors/role_registry.hpp"
#include "actors/simulator_fixture.hpp"
#include "agent/heuristics/heuristic_policies.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "agent/llm_policies/llm_mutator.hpp"
#include "agent/roles/role_table.hpp"
#include "config/aopt_config.hpp"
#include "runtime/llm_factory.hpp"
#include "support/openai_stub_server.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;
namespace fs = std::filesystem;

namespace {

// The simulator, counting what reaches it.
class counting_device final : public npu::device {
 public:
  explicit counting_device(std::shared_ptr<npu::device> inner) : inner_(std::move(inner)) {}
  npu::eval_result evaluate(const npu::op_package& op, const std::string& tiling,
                            const std::string& kernel, const npu::eval_options& options) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tilings_.push_back(tiling);
    }
    return inner_->evaluate(op, tiling, kernel, options);
  }
  std::string profile_id() const override { return inner_->profile_id(); }
  std::vector<std::string> tilings() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return tilings_;
  }

 private:
  std::shared_ptr<npu::device> inner_;
  mutable std::mutex mutex_;
  std::vector<std::string> tilings_;
};

std::string edit(const std::string& search, const std::string& replace) {
  return "<<<<<<< SEARCH\n" + search + "\n=======\n" + replace + "\n>>>>>>> REPLACE\n";
}

const std::string tile_and_buffers =
    "constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 32768]\n"
    "constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}";
const std::string huge_tiles =
    "constexpr uint32_t TILE_LENGTH = 32768;  // tunable: pow2 [256, 32768]\n"
    "constexpr uint32_t BUFFER_NUM = 2;      // tunable: choice {1, 2}";
const std::string block_dim_8 = "constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]";
const std::string block_dim_4 = "constexpr uint32_t BLOCK_DIM = 4;       // tunable: range [1, 40]";

// add_custom with its tile no longer clamped to the UB: the tiling data shows an overflow.
std::shared_ptr<const npu::op_package> unclamped_add_custom(const fs::path& dir) {
  fs::copy(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom", dir,
           fs::copy_options::recursive);
  const fs::path host = dir / "op_host/add_custom.cpp";
  std::stringstream text;
  text << std::ifstream(host).rdbuf();
  std::string source = text.str();
  const std::string clamp = "std::min(TILE_LENGTH, maxTile)";
  const size_t at = source.find(clamp);
  REQUIRE(at != std::string::npos);
  source.replace(at, clamp.size(), "TILE_LENGTH");
  std::ofstream(host, std::ios::trunc) << source;
  result<npu::op_package> op = npu::load_op_package(dir);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::make_shared<const npu::op_package>(std::move(*op));
}

struct episode_run {
  agent::episode_state state;
  std::vector<agent::candidate_record> candidates;
};

// One Stage I episode of budget 1 with the LLM mutator, gated by tiling_probe over `screen`
// (empty: the role probes nothing).
episode_run run_episode(std::shared_ptr<const npu::op_package> op,
                        std::shared_ptr<agent::llm_backend> llm,
                        std::shared_ptr<counting_device> device, agent::tiling_screen screen) {
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::aopt>();
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  agent::policy_set policies;
  policies.mutator = std::make_shared<agent::llm_mutator_policy>(llm);
  // Stage II never runs (strategy stage1); its one required role is there, never asked.
  policies.refiner = std::make_shared<agent::heuristic_refiner_policy>();
  config::pipeline_config roles;
  roles.stage2 = {"refiner"};
  result<actors::episode_pipeline> pipeline =
      actors::role_registry::with_builtin_roles().spawn_pipeline(sys, roles.stage1, roles.stage2,
                                                                 policies);
  REQUIRE_MESSAGE(pipeline.ok(), pipeline.error().to_string());
  npu::eval_options eval;
  eval.input_sets = 1;
  pipeline->evaluator =
      actors::spawn_evaluator(sys, {device, actors::spawn_device_pool(sys, {}), nullptr, eval});
  const agent::role_descriptor* probe = agent::find_role(agent::role_descriptors(), "tiling_probe");
  REQUIRE(probe != nullptr);
  agent::role_environment env;
  env.tiling_probe = screen;
  result<agent::hook_policy> gate = probe->make(env);
  REQUIRE(gate.ok());
  pipeline->hooked = {{"tiling_probe", actors::spawn_hook_role(sys, *gate)}};

  agent::episode_config episode_cfg;
  episode_cfg.strat = agent::strategy::stage1;
  episode_cfg.budget = 1;
  episode_cfg.gates = {"tiling_probe"};
  auto journal = std::make_shared<testing::recording_journal>();
  std::optional<actors::episode_summary> summary =
      testing::episode_to_end(sys, {op, agent::initial_episode_state("c", *op, episode_cfg),
                                    *pipeline, journal, nullptr, nullptr});
  REQUIRE(summary.has_value());
  REQUIRE_MESSAGE(summary->error.empty(), summary->error);
  REQUIRE(summary->state.value);
  return {*summary->state.value, journal->candidates()};
}

std::string user_prompt(const test::stub_request& r) {
  return r.body.at("messages").back().at("content").get<std::string>();
}

}  // namespace

TEST_CASE(
    "an infeasible tiling of the LLM mutator is rejected by the probe before the device, and the "
    "LLM reads why") {
  testing::temp_dir work;
  auto op = unclamped_add_custom(work.path() / "add_custom");
  test::openai_stub_server server;
  auto cfg = config::load_config("", {"llm.base_url=" + server.base_url(), "llm.model=stub-model",
                                      "llm.api_key_env=AOPT_TEST_UNSET_KEY", "llm.max_retries=0",
                                      "llm.timeout_s=5", "llm.cache=off"});
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  auto llm = runtime::make_llm_backend(*cfg, nullptr);
  REQUIRE_MESSAGE(llm.ok(), llm.error().to_string());
  auto simulator = testing::simulator_device(work.path() / "device");
  auto device = std::make_shared<counting_device>(simulator);
  const agent::tiling_screen screen = agent::make_probe_screen(simulator, 196608);

  server.script(
      {test::reply("Bigger, double-buffered tiles.\n" + edit(tile_and_buffers, huge_tiles)),
       test::reply("Use fewer cores.\n" + edit(block_dim_8, block_dim_4))});
  const episode_run probed = run_episode(op, *llm, device, screen);

  // The device saw the baseline and the feasible (slower) proposal, never the rejected one; the
  // step was spent once.
  const std::vector<std::string> evaluated = device->tilings();
  REQUIRE(evaluated.size() == 2);
  CHECK(evaluated[0] == op->host_source);
  CHECK(evaluated[1].find("BLOCK_DIM = 4;") != std::string::npos);
  CHECK(evaluated[1].find("TILE_LENGTH = 32768;") == std::string::npos);
  CHECK(probed.state.candidates == 1);
  CHECK(probed.state.rejected.at("ub_overflow (tiling_probe)") == 1);
  CHECK(probed.state.probe_rejections == 1);
  REQUIRE(probed.candidates.size() == 2);
  CHECK(probed.candidates[1].origin.find(
            "(after 1 rejected before the device, the last by tiling_probe for ub_overflow: "
            "tileLength 32768 x bufferNum 2") != std::string::npos);
  // The rejection and its reason are in the LLM's next prompt, as a failed trial.
  const auto requests = server.received();
  REQUIRE(requests.size() == 2);
  CHECK(user_prompt(requests[0]).find("rejected by tiling_probe") == std::string::npos);
  const std::string second = user_prompt(requests[1]);
  CHECK(second.find("BLOCK_DIM=8, BUFFER_NUM=2, TILE_LENGTH=32768: failed (ub_overflow: rejected "
                    "by tiling_probe before the device: tileLength 32768 x bufferNum 2") !=
        std::string::npos);

  // No screen: the same infeasible proposal costs a device evaluation, which fails.
  server.script(
      {test::reply("Bigger, double-buffered tiles.\n" + edit(tile_and_buffers, huge_tiles))});
  const episode_run unprobed = run_episode(op, *llm, device, {});
  const std::vector<std::string> all = device->tilings();
  CHECK(server.chat_requests() == 3);
  REQUIRE(all.size() == evaluated.size() + 2);  // the baseline, the infeasible tiling
  CHECK(all.back().find("TILE_LENGTH = 32768;") != std::string::npos);
  CHECK(unprobed.state.probe_rejections == 0);
  CHECK(unprobed.state.rejected.count("ub_overflow (tiling_probe)") == 0);
  REQUIRE(unprobed.candidates.size() == 2);
  CHECK_FALSE(unprobed.candidates[1].result.ok());
}
