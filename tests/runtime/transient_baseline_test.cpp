// A baseline killed at the wall-clock limit (a starved run on a loaded machine) does not fail
// its operator for good: rerunning the campaign evaluates the baseline again.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "agent/episode/episode_state.hpp"
#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

aopt::result<aopt::runtime::campaign_outcome> run_add_custom(aopt::storage::store& db,
                                                             std::vector<std::string> overrides) {
  overrides.insert(overrides.end(), {"campaign.budget=1", "campaign.strategy=stage1"});
  auto cfg = aopt::config::load_config("", overrides);
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  aopt::runtime::campaign_request request;
  request.campaign = "c-transient";
  request.operators = {fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom"};
  request.config = *cfg;
  return aopt::runtime::run_campaign(request, db, nullptr,
                                     std::make_shared<std::atomic<bool>>(false));
}

}  // namespace

TEST_CASE("a rerun evaluates again a baseline that was killed at the wall-clock limit") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());

  auto starved = run_add_custom(**db, {"device.timeout_s=0.001"});
  REQUIRE_MESSAGE(starved.ok(), starved.error().to_string());
  REQUIRE(starved->episodes.size() == 1);
  CHECK(starved->episodes[0].phase == aopt::agent::episode_phase::failed);
  CHECK(starved->episodes[0].failure.find("timeout") != std::string::npos);
  CHECK_FALSE(starved->interrupted);

  auto rerun = run_add_custom(**db, {});
  REQUIRE_MESSAGE(rerun.ok(), rerun.error().to_string());
  REQUIRE(rerun->episodes.size() == 1);
  const aopt::agent::episode_state& episode = rerun->episodes[0];
  CHECK(episode.phase == aopt::agent::episode_phase::done);
  CHECK(episode.failure.empty());
  CHECK(episode.baseline_us > 0);
  CHECK(episode.candidates == 1);

  auto records = (*db)->list_candidates("c-transient", "add_custom");
  REQUIRE(records.ok());
  REQUIRE(records->size() == 3);
  auto first = aopt::agent::candidate_record_from_json((*records)[0].value);
  auto second = aopt::agent::candidate_record_from_json((*records)[1].value);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->role == "baseline");
  CHECK(first->result.error_kind == "wall_clock");
  CHECK(second->role == "baseline");
  CHECK(second->result.ok());
}
