// The id a campaign gets when none is given, and how a campaign begun by an older aopt is found
// again under the id that aopt gave it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/aopt_config.hpp"
#include "storage/store.hpp"

namespace aopt::runtime {

// A hash of the operators and of the settings that can change results and differ from their
// defaults (never campaign.jobs, device.slots, [report], [server], [storage] or [workers]; the
// [cann] and [cascade] sections only on those devices). A key or role added to aopt at its
// default value therefore leaves every existing id as it was.
std::string derive_campaign_id(const std::vector<std::filesystem::path>& operators,
                               const config::aopt_config& config);

// The id aopt up to 52696b3 derived: a hash of every setting of the configuration schema of that
// version (keys added since are left out, so the same campaign keeps the same legacy id).
std::string legacy_campaign_id(const std::vector<std::filesystem::path>& operators,
                               const config::aopt_config& config);

// The id to run under: the campaign `db` already holds under the legacy id when there is one and
// none under the current id (a campaign interrupted before the upgrade resumes), else the current.
std::string resolve_campaign_id(const storage::store& db,
                                const std::vector<std::filesystem::path>& operators,
                                const config::aopt_config& config);

}  // namespace aopt::runtime
