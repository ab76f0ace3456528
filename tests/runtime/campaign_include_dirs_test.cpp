// A campaign over operators that include helper headers of their repository (`aopt run
// --include-dir`): the packages load with the folders named, the campaign's record keeps them so
// that a resumed campaign loads its packages the same way, and without them the package is an
// error naming the header.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "agent/episode/episode_state.hpp"
#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"
#include "support/team_layout_repository.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using repository = aopt::testing::team_layout_repository;

aopt::result<aopt::runtime::campaign_outcome> run(aopt::storage::store& db,
                                                  const aopt::runtime::campaign_request& request) {
  return aopt::runtime::run_campaign(request, db, nullptr,
                                     std::make_shared<std::atomic<bool>>(false));
}

}  // namespace

TEST_CASE("a campaign loads its operators with the include folders named, and resumes with them") {
  repository repo;
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());
  auto cfg = aopt::config::load_config("", {"campaign.budget=1", "campaign.strategy=stage1"});
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  aopt::runtime::campaign_request request;
  request.operators = {repo.package};
  request.config = *cfg;

  request.campaign = "c-without";
  auto without = run(**db, request);
  REQUIRE_MESSAGE(without.ok(), without.error().to_string());
  REQUIRE(without->episodes.size() == 1);
  CHECK(without->episodes[0].phase == aopt::agent::episode_phase::failed);
  CHECK_MESSAGE(
      without->episodes[0].failure.find("tiling_helpers/tile_math.h") != std::string::npos,
      without->episodes[0].failure);

  request.campaign = "c-with";
  request.include_dirs = {repo.include};
  auto with = run(**db, request);
  REQUIRE_MESSAGE(with.ok(), with.error().to_string());
  CHECK(with->errors.empty());
  REQUIRE(with->episodes.size() == 1);
  CHECK(with->episodes[0].phase == aopt::agent::episode_phase::done);
  CHECK(with->episodes[0].baseline_us > 0);

  // The record keeps the folders: the campaign loaded back runs as it was started.
  auto stored = aopt::runtime::load_campaign_request(**db, "c-with");
  REQUIRE_MESSAGE(stored.ok(), stored.error().to_string());
  REQUIRE(stored->include_dirs.size() == 1);
  CHECK(stored->include_dirs[0] == repo.include);
  auto resumed = run(**db, *stored);
  REQUIRE_MESSAGE(resumed.ok(), resumed.error().to_string());
  CHECK(resumed->errors.empty());
  REQUIRE(resumed->episodes.size() == 1);
  CHECK(resumed->episodes[0].baseline_us == with->episodes[0].baseline_us);

  // A campaign started without folders records none.
  auto plain = aopt::runtime::load_campaign_request(**db, "c-without");
  REQUIRE(plain.ok());
  CHECK(plain->include_dirs.empty());
}
