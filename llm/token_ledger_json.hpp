// The JSON form of a token_ledger: persisted in the campaign record (campaigns column family,
// key "llm_usage") and printed in the campaign report.
//
//   {"entries": [{"campaign", "op", "role", "calls", "cache_hits", "failures",
//                 "used": {"prompt_tokens", "completion_tokens"}, "billed": {...}, "cost"?}],
//    "total": {"calls", ..., "cost"?},
//    "prices": {"per_1k_prompt", "per_1k_completion"}}
//
// "cost" (billed tokens at the price table) is present only when a price table is set.
//
// Persistent: stored in RocksDB; keep old keys readable when changing it.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "llm/token_ledger.hpp"

namespace aopt::llm {

nlohmann::json to_json(const token_ledger& ledger);
// Errors: data_loss for a document that is not of the form above.
result<token_ledger> token_ledger_from_json(const nlohmann::json& j);

}  // namespace aopt::llm
