#include "actors/rewinder.hpp"

#include <doctest/doctest.h>

#include <optional>

#include "actors/device_pool.hpp"
#include "actors/device_pool_slots.hpp"
#include "actors/messages.hpp"
#include "actors/shut_down.hpp"
#include "actors/simulator_fixture.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;

TEST_CASE("the rewinder actor rewinds an expert through the device pool and distills its pairs") {
  testing::temp_dir work;
  auto device = testing::simulator_device(work.path());
  auto op = testing::corpus_package("experts/hardswish_custom");

  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::aopt>();
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  npu::eval_options eval;
  eval.input_sets = 1;
  actors::device_pool_actor pool = actors::spawn_device_pool(sys, {});
  actors::rewinder_context context;
  context.evaluations = std::make_shared<agent::evaluation_service>(
      std::make_shared<actors::device_pool_slots>(sys, pool, device), nullptr, eval);
  context.proposer = [](std::shared_ptr<const npu::op_package>) {
    return agent::heuristic_rewind_proposer();
  };
  context.distill = agent::heuristic_distiller("heuristic-rewind");
  actors::rewinder_actor rewinder = actors::spawn_rewinder(sys, std::move(context));

  caf::scoped_actor self{sys};
  std::optional<result<agent::distilled_expert>> done;
  self->request(rewinder, caf::infinite, actors::rewind_atom_v, actors::make_local(*op))
      .receive([&](const actors::rewind_outcome& r) { done = *r.value; },
               [&](const caf::error& e) { FAIL("rewinder: " << caf::to_string(e)); });
  std::optional<actors::pool_stats> stats;
  self->request(pool, caf::infinite, actors::stats_atom_v)
      .receive([&](const actors::pool_stats& s) { stats = s; },
               [&](const caf::error& e) { FAIL("device pool: " << caf::to_string(e)); });
  actors::shut_down(rewinder, pool);

  REQUIRE(done.has_value());
  REQUIRE_MESSAGE(done->ok(), done->error().to_string());
  const agent::distilled_expert& expert = **done;
  CHECK(expert.trajectory.expert_op == "hardswish_custom");
  CHECK(expert.trajectory.expert_result.ok());
  REQUIRE_FALSE(expert.trajectory.pairs.empty());
  CHECK(expert.failures.empty());
  REQUIRE(expert.tuples.size() == expert.trajectory.pairs.size());
  for (const agent::distilled_tuple& d : expert.tuples) {
    CHECK(d.tuple.provenance.expert_op == "hardswish_custom");
    CHECK(d.tuple.embedding.has_value());
    CHECK_FALSE(d.slow_query.empty());
  }
  // The expert and every step that changed the kernel went through the device pool.
  uint64_t evaluated = 1;
  for (const agent::rewind_step& s : expert.trajectory.steps) {
    if (s.verdict != "unchanged") ++evaluated;
  }
  REQUIRE(stats.has_value());
  CHECK(stats->evaluated == evaluated);
}
