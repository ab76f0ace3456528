#include <doctest/doctest.h>

#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"

TEST_CASE("a campaign's derived id follows the settings that shape results only") {
  const std::vector<std::filesystem::path> ops = {"/corpus/level1/add_custom"};
  const aopt::config::aopt_config base = aopt::config::aopt_config{};
  const std::string id = aopt::runtime::derive_campaign_id(ops, base);
  CHECK(id.rfind("c-", 0) == 0);

  aopt::config::aopt_config same = base;
  same.campaign.jobs = base.campaign.jobs + 3;
  same.device.slots = base.device.slots + 1;
  same.report.dir = "elsewhere";
  same.storage.db = "/tmp/other-db";
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
  CHECK(aopt::runtime::derive_campaign_id({"/corpus/level1/relu_custom"}, base) != id);
}
