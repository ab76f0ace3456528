// A role added to the registry by its caller (one policy class, one add()) serves a configured
// pipeline: a real episode on the simulator evaluates what it proposes, with no diagnoser and no
// retriever in the pipeline.
#include "actors/role_registry.hpp"

#include <doctest/doctest.h>

#include <optional>

#include "actors/device_pool.hpp"
#include "actors/episode_to_end.hpp"
#include "actors/evaluator.hpp"
#include "actors/messages.hpp"
#include "actors/recording_journal.hpp"
#include "actors/refiner.hpp"
#include "actors/simulator_fixture.hpp"
#include "agent/heuristics/heuristic_policies.hpp"
#include "config/aopt_config.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;

namespace {

// Proposes the kernel with a comment appended: a different text, so a new candidate.
class annotating_refiner final : public agent::refiner_policy {
 public:
  std::string name() const override { return "annotating"; }
  result<std::vector<agent::kernel_candidate>> refine(
      const agent::refinement_request& request) override {
    requests_.push_back(request.diag.query);
    return std::vector<agent::kernel_candidate>{
        {request.kernel + "\n// annotated by a custom role\n", "annotated", {}}};
  }
  std::vector<std::string> requests_;
};

}  // namespace

TEST_CASE("a role registered by its caller runs in a configured pipeline without diagnoser") {
  auto custom = std::make_shared<annotating_refiner>();
  actors::role_registry registry = actors::role_registry::with_builtin_roles();
  registry.add("annotating_refiner", [custom](caf::actor_system& sys, const agent::policy_set&) {
    return actors::spawned_role<actors::refiner_actor>{actors::spawn_refiner(sys, custom),
                                                       custom->name()};
  });
  config::pipeline_config pipeline_cfg;
  pipeline_cfg.stage2 = {"annotating_refiner"};

  // A pipeline naming a role nobody registered is refused before anything is spawned.
  config::pipeline_config unknown = pipeline_cfg;
  unknown.stage2 = {"diagnoser", "critic"};
  CHECK(registry.resolve(unknown.stage1, unknown.stage2)
            .error()
            .message()
            .find("pipeline.stage2[1]: no role 'critic'") == 0);

  testing::temp_dir work;
  auto device = testing::simulator_device(work.path());
  auto package = testing::corpus_package("level1/add_custom");

  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::aopt>();
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  agent::policy_set policies;
  policies.mutator = std::make_shared<agent::heuristic_mutator_policy>();
  result<actors::episode_pipeline> pipeline =
      registry.spawn_pipeline(sys, pipeline_cfg.stage1, pipeline_cfg.stage2, policies);
  REQUIRE_MESSAGE(pipeline.ok(), pipeline.error().to_string());
  CHECK(!pipeline->diagnoser);
  CHECK(!pipeline->retriever);
  npu::eval_options eval;
  eval.input_sets = 3;
  pipeline->evaluator =
      actors::spawn_evaluator(sys, {device, actors::spawn_device_pool(sys, {}), nullptr, eval});

  agent::episode_config episode_cfg;
  episode_cfg.strat = agent::strategy::stage2;
  episode_cfg.budget = 2;
  auto journal = std::make_shared<testing::recording_journal>();
  std::optional<actors::episode_summary> summary = testing::episode_to_end(
      sys, {package, agent::initial_episode_state("c", *package, episode_cfg), *pipeline, journal,
            nullptr, nullptr});

  REQUIRE(summary.has_value());
  CHECK(summary->error.empty());
  // The baseline, then the custom role's candidate, evaluated; the refiner got an empty
  // diagnosis because the pipeline has no diagnoser.
  const std::vector<agent::candidate_record> records = journal->candidates();
  REQUIRE(records.size() >= 2);
  const agent::candidate_record& proposed = records[1];
  CHECK(proposed.role == "refiner");
  CHECK(proposed.policy == "annotating");
  CHECK(proposed.origin == "annotated");
  CHECK(proposed.result.status == npu::eval_status::ok);
  CHECK(proposed.kernel.find("annotated by a custom role") != std::string::npos);
  REQUIRE(!custom->requests_.empty());
  CHECK(custom->requests_.front().empty());
}
