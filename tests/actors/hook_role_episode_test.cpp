// The open hooks (agent/episode/hooks.hpp) through the episode actor and hooked-role actors: an
// annotator's statement reaches the diagnoser and the refiner, a gate's veto keeps a candidate
// from the device at no budget and reaches the refiner, an observer sees every evaluation and
// its state is persisted with the episode. The policies are the test's own, written as a new
// role's author would; the device is a scripted stand-in (the hooks never depend on it).
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/device_pool.hpp"
#include "actors/episode_to_end.hpp"
#include "actors/evaluator.hpp"
#include "actors/hook_role.hpp"
#include "actors/messages.hpp"
#include "actors/recording_journal.hpp"
#include "actors/role_registry.hpp"
#include "actors/simulator_fixture.hpp"
#include "agent/episode/hooks.hpp"
#include "config/aopt_config.hpp"

using namespace aopt;

namespace {

constexpr const char* vetoed_marker = "// veto me";

// Latency falls with every kernel the device sees, so each evaluated rewrite is kept.
class scripted_device final : public npu::device {
 public:
  npu::eval_result evaluate(const npu::op_package&, const std::string&, const std::string& kernel,
                            const npu::eval_options&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    kernels_.push_back(kernel);
    npu::eval_result r;
    r.status = npu::eval_status::ok;
    r.latency_us = 100.0 - static_cast<double>(kernels_.size());
    r.profile.core_time_max_us = r.latency_us;
    return r;
  }
  std::string profile_id() const override { return "scripted"; }
  std::vector<std::string> kernels() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kernels_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> kernels_;
};

// Stage I never runs (strategy stage2): the pipeline's mutator is never asked.
class no_tilings final : public agent::mutator_policy {
 public:
  std::string name() const override { return "no-tilings"; }
  result<agent::mutation_reply> mutate(const agent::mutation_request&) override {
    return failed_precondition("no tilings in this test");
  }
};

// Records what it was asked: the annotations and the vetoes it heard of.
struct recorder {
  std::mutex mutex;
  std::vector<agent::diagnosis_request> diagnoses;
  std::vector<agent::refinement_request> refinements;
};

class recording_diagnoser final : public agent::diagnoser_policy {
 public:
  explicit recording_diagnoser(std::shared_ptr<recorder> r) : r_(std::move(r)) {}
  std::string name() const override { return "recording-diagnoser"; }
  result<agent::diagnosis> diagnose(const agent::diagnosis_request& request) override {
    std::lock_guard<std::mutex> lock(r_->mutex);
    r_->diagnoses.push_back(request);
    return agent::diagnosis{"copy-in bound", {"mte2_bound"}};
  }

 private:
  std::shared_ptr<recorder> r_;
};

// Two rewrites per request: one the gate vetoes, one it lets through.
class two_rewrites final : public agent::refiner_policy {
 public:
  explicit two_rewrites(std::shared_ptr<recorder> r) : r_(std::move(r)) {}
  std::string name() const override { return "two-rewrites"; }
  result<std::vector<agent::kernel_candidate>> refine(
      const agent::refinement_request& request) override {
    std::lock_guard<std::mutex> lock(r_->mutex);
    r_->refinements.push_back(request);
    const std::string n = std::to_string(r_->refinements.size());
    return std::vector<agent::kernel_candidate>{
        {request.kernel + "\n" + vetoed_marker + " " + n + "\n", "rule:bad" + n, {}},
        {request.kernel + "\n// good " + n + "\n", "rule:good" + n, {}}};
  }

 private:
  std::shared_ptr<recorder> r_;
};

class marker_gate final : public agent::gate_policy {
 public:
  std::string name() const override { return "marker-gate"; }
  result<agent::gate_verdict> judge(const agent::gate_request& request) override {
    if (request.kernel.find(vetoed_marker) == std::string::npos) return agent::gate_verdict{};
    agent::gate_verdict veto;
    veto.veto = true;
    veto.reason = "it carries the marker";
    return veto;
  }
};

class constant_annotator final : public agent::annotator_policy {
 public:
  std::string name() const override { return "constant-annotator"; }
  result<agent::annotation_reply> annotate(const agent::annotation_request&) override {
    agent::annotation_reply reply;
    reply.note.text = "the copy-in pipe bounds it";
    return reply;
  }
};

// Counts the evaluations it saw, in its persisted state.
class counting_observer final : public agent::observer_policy {
 public:
  std::string name() const override { return "counting-observer"; }
  result<nlohmann::json> observe(const agent::observation& event) override {
    const int seen = event.role_state.is_null() ? 0 : event.role_state.at("seen").get<int>();
    return nlohmann::json{{"seen", seen + 1}, {"last", event.role}};
  }
};

}  // namespace

TEST_CASE("hooked roles: annotations, vetoes and observations through the episode actor") {
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::aopt>();
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  auto rec = std::make_shared<recorder>();
  agent::policy_set policies;
  policies.mutator = std::make_shared<no_tilings>();
  policies.diagnoser = std::make_shared<recording_diagnoser>(rec);
  policies.refiner = std::make_shared<two_rewrites>(rec);
  config::pipeline_config roles;
  roles.stage2 = {"diagnoser", "refiner"};
  result<actors::episode_pipeline> pipeline =
      actors::role_registry::with_builtin_roles().spawn_pipeline(sys, roles.stage1, roles.stage2,
                                                                 policies);
  REQUIRE_MESSAGE(pipeline.ok(), pipeline.error().to_string());
  auto device = std::make_shared<scripted_device>();
  pipeline->evaluator =
      actors::spawn_evaluator(sys, {device, actors::spawn_device_pool(sys, {}), nullptr, {}});
  pipeline->hooked = {
      {"notes", actors::spawn_hook_role(sys, std::shared_ptr<agent::annotator_policy>(
                                                 std::make_shared<constant_annotator>()))},
      {"marker", actors::spawn_hook_role(
                     sys, std::shared_ptr<agent::gate_policy>(std::make_shared<marker_gate>()))},
      {"counter", actors::spawn_hook_role(sys, std::shared_ptr<agent::observer_policy>(
                                                   std::make_shared<counting_observer>()))}};

  auto op = testing::corpus_package("level1/add_custom");
  agent::episode_config episode_cfg;
  episode_cfg.strat = agent::strategy::stage2;
  episode_cfg.budget = 3;
  episode_cfg.annotators = {"notes"};
  episode_cfg.gates = {"marker"};
  episode_cfg.observers = {"counter"};
  auto journal = std::make_shared<testing::recording_journal>();
  std::optional<actors::episode_summary> summary =
      testing::episode_to_end(sys, {op, agent::initial_episode_state("c", *op, episode_cfg),
                                    *pipeline, journal, nullptr, nullptr});
  REQUIRE(summary.has_value());
  REQUIRE_MESSAGE(summary->error.empty(), summary->error);
  REQUIRE(summary->state.value);
  const agent::episode_state& s = *summary->state.value;

  // The device saw the baseline and three rewrites (the budget), none vetoed.
  const std::vector<std::string> kernels = device->kernels();
  CHECK(s.candidates == 3);
  for (const std::string& k : kernels) CHECK(k.find(vetoed_marker) == std::string::npos);
  CHECK(s.rejected.at("vetoed by marker") >= 2);
  // The refiner heard of the vetoes, with the gate's reason.
  std::lock_guard<std::mutex> lock(rec->mutex);
  REQUIRE(rec->refinements.size() >= 2);
  CHECK(rec->refinements[0].vetoes.empty());
  REQUIRE_FALSE(rec->refinements[1].vetoes.empty());
  CHECK(rec->refinements[1].vetoes[0].gate == "marker");
  CHECK(rec->refinements[1].vetoes[0].reason == "it carries the marker");
  // The annotation reached the diagnoser and the refiner, under the role's name.
  REQUIRE_FALSE(rec->diagnoses.empty());
  REQUIRE(rec->diagnoses[0].annotations.size() == 1);
  CHECK(rec->diagnoses[0].annotations[0].role == "notes");
  CHECK(rec->refinements[0].annotations[0].text == "the copy-in pipe bounds it");
  // The observer saw every evaluation (the baseline and the budget; the validation run of the
  // best is no candidate); its state is persisted with the episode.
  CHECK(s.role_states.at("counter").at("seen").get<uint32_t>() == s.candidates + 1);
  const nlohmann::json stored = s;
  auto back = agent::episode_state_from_json(stored);
  REQUIRE(back.ok());
  CHECK(back->role_states.at("counter") == s.role_states.at("counter"));
  CHECK(back->vetoes.size() == s.vetoes.size());
  CHECK(back->config.gates == std::vector<std::string>{"marker"});
}

TEST_CASE("a hooked-role actor refuses a hook its policy does not serve") {
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::aopt>();
  caf::actor_system sys{cfg};
  auto gate = actors::spawn_hook_role(
      sys, std::shared_ptr<agent::gate_policy>(std::make_shared<marker_gate>()));
  caf::scoped_actor self{sys};
  self->request(gate, caf::infinite, actors::annotate_atom_v,
                actors::make_local(agent::annotation_request{}))
      .receive(
          [&](const actors::annotation_outcome& o) {
            REQUIRE_FALSE(o.value->ok());
            CHECK(o.value->error().message() == "marker-gate serves the gate hook, not annotate");
          },
          [&](const caf::error& e) { FAIL(caf::to_string(e)); });
  actors::shut_down(gate);
}
