// The JSON documents the API returns for campaigns, operators and the experience bank, read
// from the store. Plain functions without I/O beyond store reads, so they are tested directly.
//
// Thread-safety: pure functions over a thread-safe store (and a thread-safe cache).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "server/episode_summary_cache.hpp"
#include "storage/store.hpp"

namespace aopt::server {

// {id, status, strategy, created, updated, error?, budget, operators, evaluations, total_budget,
//  progress (0..1), geomean_speedup, fast_p, episodes_finished, operator_results[] (name, level,
//  phase, round, stage, evaluations, budget, baseline_us, best_us, speedup, failures)}.
// Episode states come through `episodes`, which parses each stored version once.
// Errors: not_found for an unknown campaign.
result<nlohmann::json> campaign_view(const storage::store& db, const std::string& id,
                                     episode_summary_cache& episodes);

// Every campaign's view, sorted by id, without operator_results.
result<nlohmann::json> campaign_list_view(const storage::store& db,
                                          episode_summary_cache& episodes);

// One operator of a campaign: {campaign, name, level, phase, failure, round, stage, evaluations,
// budget, baseline_us, best_us, speedup, trajectory[] (evaluation, best_us, stage),
// candidates[] (seq, round, stage, role, policy, origin, tuple_ids, status, error_kind, message,
// latency_us, accepted, best_after_us, from_cache), tuples_used[], failures{}, baseline_tiling,
// baseline_kernel, best_tiling, best_kernel, kernel_diff, tiling_diff}.
// Errors: not_found for an unknown campaign or operator.
result<nlohmann::json> operator_view(const storage::store& db, const std::string& campaign,
                                     const std::string& op);

// The experience bank: {tuples: [{id, title, bottleneck, score?}], total}. With a non-empty
// `query`, only tuples whose text (title, description, bottleneck, tags) contains at least one
// of its words, ranked by the number of distinct words found; at most `limit` tuples.
result<nlohmann::json> bank_view(const storage::store& db, const std::string& query, size_t limit);

// One tuple as stored. Errors: not_found.
result<nlohmann::json> tuple_view(const storage::store& db, const std::string& id);

}  // namespace aopt::server
