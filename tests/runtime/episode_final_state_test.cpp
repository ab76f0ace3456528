// An episode whose last stage ends without an evaluation (its refiner has nothing more to
// propose) still stores its final state: readers of the database (aopt status, aopt report, the
// daemon's views) see it done, not running.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>

#include "agent/episode/episode_state.hpp"
#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

TEST_CASE("an episode that ends without an evaluation stores its final state") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());
  auto cfg = aopt::config::load_config("", {"campaign.strategy=stage2", "campaign.budget=40"});
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  aopt::runtime::campaign_request request;
  request.operators = {std::filesystem::path(AOPT_SOURCE_DIR) / "corpus/level1/relu_custom"};
  request.config = *cfg;
  auto outcome = aopt::runtime::run_campaign(request, **db, nullptr,
                                             std::make_shared<std::atomic<bool>>(false));
  REQUIRE_MESSAGE(outcome.ok(), outcome.error().to_string());
  REQUIRE(outcome->episodes.size() == 1);
  const aopt::agent::episode_state& returned = outcome->episodes[0];
  CHECK(returned.phase == aopt::agent::episode_phase::done);
  // The refiner ran out of proposals before the budget: the episode ended on a policy's answer.
  CHECK(returned.candidates < 40);

  auto stored = (*db)->get_episode(outcome->campaign, "relu_custom");
  REQUIRE(stored.ok());
  auto state = aopt::agent::episode_state_from_json(*stored);
  REQUIRE(state.ok());
  CHECK(state->phase == aopt::agent::episode_phase::done);
  CHECK(state->candidates == returned.candidates);
}
