#include <doctest/doctest.h>

#include "config/aopt_config.hpp"
#include "runtime/campaign_identity.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {
const std::vector<std::filesystem::path> ops = {"/corpus/level1/add_custom"};
}  // namespace

TEST_CASE("a campaign's derived id follows the settings that shape results only") {
  const aopt::config::aopt_config base = aopt::config::aopt_config{};
  const std::string id = aopt::runtime::derive_campaign_id(ops, base);
  CHECK(id.rfind("c-", 0) == 0);

  aopt::config::aopt_config same = base;
  same.campaign.jobs = base.campaign.jobs + 3;
  same.device.slots = base.device.slots + 1;
  same.report.dir = "elsewhere";
  same.storage.db = "/tmp/other-db";
  same.llm.max_concurrency = base.llm.max_concurrency + 2;
  same.cann.remeasure_top = base.cann.remeasure_top + 1;  // no hardware device: no effect
  CHECK(aopt::runtime::derive_campaign_id(ops, same) == id);

  aopt::config::aopt_config other = base;
  other.campaign.budget = base.campaign.budget + 1;
  CHECK(aopt::runtime::derive_campaign_id(ops, other) != id);
  other = base;
  other.campaign.seed = base.campaign.seed + 1;
  CHECK(aopt::runtime::derive_campaign_id(ops, other) != id);
  other = base;
  other.campaign.stage2_adaptive = false;
  CHECK(aopt::runtime::derive_campaign_id(ops, other) != id);
  other = base;
  other.roles["refiner"].policy = aopt::config::policy_kind::llm;
  CHECK(aopt::runtime::derive_campaign_id(ops, other) != id);
  other = base;
  other.device.kind = aopt::config::device_kind::cann;
  const std::string on_hardware = aopt::runtime::derive_campaign_id(ops, other);
  CHECK(on_hardware != id);
  other.cann.remeasure_top = base.cann.remeasure_top + 1;
  CHECK(aopt::runtime::derive_campaign_id(ops, other) != on_hardware);
  CHECK(aopt::runtime::derive_campaign_id({"/corpus/level1/relu_custom"}, base) != id);
}

TEST_CASE("a setting changed and set back to its default leaves the id as it was") {
  aopt::config::aopt_config c;
  const std::string id = aopt::runtime::derive_campaign_id(ops, c);
  c.roles["verifier"] = aopt::config::role_config{};  // a role the defaults do not name
  CHECK(aopt::runtime::derive_campaign_id(ops, c) != id);
  c.roles.erase("verifier");
  c.bank.dedup_threshold = 0.5;
  c.bank.dedup_threshold = aopt::config::aopt_config{}.bank.dedup_threshold;
  CHECK(aopt::runtime::derive_campaign_id(ops, c) == id);
}

// The ids aopt 52696b3 derived (its derive_campaign_id, run on these configurations).
TEST_CASE("the legacy id is the one aopt 52696b3 gave the same campaign") {
  aopt::config::aopt_config c;
  CHECK(aopt::runtime::legacy_campaign_id(ops, c) == "c-0864a03b1f73");
  c.campaign.budget = 7;
  c.stage1.probe_tilings = false;
  CHECK(aopt::runtime::legacy_campaign_id(ops, c) == "c-50091d65fa5a");
  c = {};
  c.device.kind = aopt::config::device_kind::cann;
  c.roles["refiner"].policy = aopt::config::policy_kind::llm;
  CHECK(aopt::runtime::legacy_campaign_id(ops, c) == "c-960a26518af4");
  CHECK(aopt::runtime::legacy_campaign_id(ops, c) != aopt::runtime::derive_campaign_id(ops, c));
}

TEST_CASE("a campaign stored under its legacy id is resumed under it, a new one gets the new id") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  aopt::config::aopt_config c;
  c.campaign.budget = 9;
  const std::string legacy = aopt::runtime::legacy_campaign_id(ops, c);
  const std::string current = aopt::runtime::derive_campaign_id(ops, c);
  REQUIRE(legacy != current);
  CHECK(aopt::runtime::resolve_campaign_id(**db, ops, c) == current);
  REQUIRE((*db)->put_campaign(legacy, {{"id", legacy}}).ok());
  CHECK(aopt::runtime::resolve_campaign_id(**db, ops, c) == legacy);
  // Once the campaign exists under the current id too, that one wins.
  REQUIRE((*db)->put_campaign(current, {{"id", current}}).ok());
  CHECK(aopt::runtime::resolve_campaign_id(**db, ops, c) == current);
}
