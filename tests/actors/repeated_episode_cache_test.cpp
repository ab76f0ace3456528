// An episode repeated over the evaluation cache its first run filled (a resumed or repeated
// campaign, a bench's warm run) sends nothing to the device: its candidates, the confirmations of
// its improvements and the checks of its best on the validation shapes (the default verifiers,
// agent/roles/improvement_confirmation_role.cpp and validation_role.cpp) are all answered from
// the cache, with the same outcome as the first run.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/device_pool.hpp"
#include "actors/episode_to_end.hpp"
#include "actors/evaluator.hpp"
#include "actors/messages.hpp"
#include "actors/role_registry.hpp"
#include "actors/simulator_fixture.hpp"
#include "agent/episode/episode_journal.hpp"
#include "config/aopt_config.hpp"
#include "runtime/hooked_roles.hpp"

using namespace aopt;

namespace {

// Every line a rewrite adds makes the kernel faster, so each rewrite is an improvement; the
// latency depends on the kernel alone, so a confirmation agrees with the first evaluation.
class line_counting_device final : public npu::device {
 public:
  npu::eval_result evaluate(const npu::op_package&, const std::string&, const std::string& kernel,
                            const npu::eval_options&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++calls_;
    npu::eval_result r;
    r.status = npu::eval_status::ok;
    r.latency_us = 1000.0 - static_cast<double>(std::count(kernel.begin(), kernel.end(), '\n'));
    r.profile.core_time_max_us = r.latency_us;
    return r;
  }
  std::string profile_id() const override { return "line-counting"; }
  int calls() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }

 private:
  mutable std::mutex mutex_;
  int calls_ = 0;
};

// The journal and the evaluation cache in one, as the store is in a campaign.
class caching_journal final : public agent::episode_journal, public agent::eval_cache {
 public:
  status record(const agent::episode_state&, const std::optional<agent::candidate_record>&,
                const std::optional<agent::eval_cache_entry>& entry) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entry) entries_[entry->key] = entry->result;
    return status::ok_status();
  }
  std::optional<npu::eval_result> lookup(const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, npu::eval_result> entries_;
};

class no_tiling_proposals final : public agent::mutator_policy {
 public:
  std::string name() const override { return "no-tiling-proposals"; }
  result<agent::mutation_reply> mutate(const agent::mutation_request&) override {
    return failed_precondition("no tilings in this test");
  }
};

// One more line per rewrite: the same proposals in every run.
class line_adding_refiner final : public agent::refiner_policy {
 public:
  std::string name() const override { return "line-adding"; }
  result<std::vector<agent::kernel_candidate>> refine(
      const agent::refinement_request& request) override {
    return std::vector<agent::kernel_candidate>{
        {request.kernel + "\n// one line more\n", "rule:line", {}}};
  }
};

struct cached_episode_run {
  agent::episode_state state;
  int device_calls = 0;
};

cached_episode_run run_cached_episode(const std::shared_ptr<caching_journal>& store,
                                      const std::string& campaign) {
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::aopt>();
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  agent::policy_set policies;
  policies.mutator = std::make_shared<no_tiling_proposals>();
  policies.refiner = std::make_shared<line_adding_refiner>();
  result<actors::episode_pipeline> pipeline =
      actors::role_registry::with_builtin_roles().spawn_pipeline(sys, {"mutator"}, {"refiner"},
                                                                 policies);
  REQUIRE_MESSAGE(pipeline.ok(), pipeline.error().to_string());
  auto device = std::make_shared<line_counting_device>();
  const actors::evaluator_context evaluation{device, actors::spawn_device_pool(sys, {}), store, {}};
  pipeline->evaluator = actors::spawn_evaluator(sys, evaluation);
  // The default verifiers, as a campaign spawns them: the confirmation and the validation.
  agent::role_environment environment;
  environment.evaluation = actors::make_evaluation_service(sys, evaluation);
  const config::aopt_config defaults;
  REQUIRE(defaults.pipeline.verifiers ==
          std::vector<std::string>{"improvement_confirmation", "validation"});
  result<std::vector<actors::hooked_role>> hooked =
      runtime::spawn_hooked_roles(sys, defaults, environment);
  REQUIRE_MESSAGE(hooked.ok(), hooked.error().to_string());
  pipeline->hooked = std::move(*hooked);

  auto op = testing::corpus_package("level1/add_custom");
  REQUIRE_FALSE(op->spec.validation_shapes.empty());
  agent::episode_config episode_cfg;
  episode_cfg.strat = agent::strategy::stage2;
  episode_cfg.budget = 2;
  episode_cfg.gates = {};
  episode_cfg.verifiers = defaults.pipeline.verifiers;
  std::optional<actors::episode_summary> summary =
      testing::episode_to_end(sys, {op, agent::initial_episode_state(campaign, *op, episode_cfg),
                                    *pipeline, store, nullptr, nullptr});
  REQUIRE(summary.has_value());
  REQUIRE_MESSAGE(summary->error.empty(), summary->error);
  REQUIRE(summary->state.value);
  return {*summary->state.value, device->calls()};
}

}  // namespace

TEST_CASE("a repeated episode is answered from the cache: candidates, confirmations, validations") {
  auto store = std::make_shared<caching_journal>();
  const cached_episode_run first = run_cached_episode(store, "c1");
  const size_t shapes = testing::corpus_package("level1/add_custom")->spec.validation_shapes.size();
  // The baseline, two rewrites each confirmed cold, and the best on every validation shape.
  CHECK(first.device_calls == static_cast<int>(1 + 2 * 2 + shapes));
  CHECK(first.state.candidates == 2);
  CHECK(first.state.best_result.confirmed);

  const cached_episode_run again = run_cached_episode(store, "c2");
  CHECK(again.device_calls == 0);
  CHECK(again.state.best_us == first.state.best_us);
  CHECK(again.state.best_kernel == first.state.best_kernel);
  CHECK(again.state.phase == first.state.phase);
  CHECK(again.state.notes == first.state.notes);
}
