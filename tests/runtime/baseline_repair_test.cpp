// Issue 16: a package whose shipped tiling overflows the UB is not a dead operator. The campaign
// (real policies, the simulator) repairs the baseline through Stage I, takes the first feasible
// tiling as the reference and then improves on it.
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "agent/episode/episode_state.hpp"
#include "agent/episode/outcome_reason.hpp"
#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a baseline whose tiling overflows the UB is repaired by Stage I, then improved on") {
  aopt::testing::temp_dir dir;
  const fs::path op_dir = dir.path() / "add_custom";
  fs::copy(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom", op_dir,
           fs::copy_options::recursive);
  // The shipped tiling: 32768-element tiles, double-buffered, no clamp to the UB: three queues
  // of 2 x 64 KiB do not fit.
  std::string host = read(op_dir / "op_host/add_custom.cpp");
  replace(host, "TILE_LENGTH = 2048;", "TILE_LENGTH = 32768;");
  replace(host, "BUFFER_NUM = 1;", "BUFFER_NUM = 2;");
  replace(host, "std::min(TILE_LENGTH, maxTile) / ALIGN_NUM * ALIGN_NUM;", "TILE_LENGTH;");
  std::ofstream(op_dir / "op_host/add_custom.cpp") << host;

  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());
  auto cfg = aopt::config::load_config("", {"campaign.budget=4", "campaign.strategy=stage1"});
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  aopt::runtime::campaign_request request;
  request.campaign = "c-repair";
  request.operators = {op_dir};
  request.config = *cfg;
  auto outcome = aopt::runtime::run_campaign(request, **db, nullptr,
                                             std::make_shared<std::atomic<bool>>(false));
  REQUIRE_MESSAGE(outcome.ok(), outcome.error().to_string());
  REQUIRE(outcome->episodes.size() == 1);
  const aopt::agent::episode_state& s = outcome->episodes[0];
  INFO(aopt::agent::outcome_reason(s));
  CHECK(s.phase == aopt::agent::episode_phase::done);
  CHECK(s.repaired_from.rfind("ub_overflow: ", 0) == 0);
  CHECK(s.baseline_us > 0);
  CHECK(s.best_us < s.baseline_us);
  CHECK(s.baseline_roof_fraction > 0);
  CHECK(aopt::agent::outcome_reason(s).rfind("improved; baseline repaired from ub_overflow", 0) ==
        0);

  auto records = (*db)->list_candidates("c-repair", "add_custom");
  REQUIRE(records.ok());
  auto baseline = aopt::agent::candidate_record_from_json((*records)[0].value);
  REQUIRE(baseline.ok());
  CHECK(baseline->role == "baseline");
  CHECK(baseline->result.error_kind == "ub_overflow");
}
