// An experience tuple of the bank (the paper's <Title, Description, Bottleneck, CodeDiff>) with
// where it came from. Bottleneck is the retrieval key; Description and CodeDiff tell the refiner
// what to change.
//
// Stored in RocksDB (bank column family) and in JSONL exports as the JSON below: do not rename
// keys without a storage migration.
//   {"id", "title", "description", "bottleneck", "code_diff", "category", "tags": [...],
//    "provenance": {"expert_op", "step", "latency_before_us", "latency_after_us",
//                   "profile_deltas": {name: delta}, "policy", "rule"},
//    "embedding": [floats] (absent when none)}
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::agent {

struct tuple_provenance {
  std::string expert_op;         // the expert operator the trajectory started from
  uint32_t step = 0;             // rewind step t of the pair (K(t+1) slow, K(t) fast)
  double latency_before_us = 0;  // the slow kernel K(t+1): before the optimization
  double latency_after_us = 0;   // the fast kernel K(t): after it
  // Profile changes from the slow to the fast kernel, e.g. {"mte2.ratio": -0.21}.
  std::map<std::string, double> profile_deltas;
  std::string policy;  // what produced the pair, e.g. "heuristic-rewind" or "llm-rewind"
  std::string rule;    // the rewind rule, empty for LLM rewinds
};

struct experience_tuple {
  std::string id;
  std::string title;
  std::string description;
  std::string bottleneck;
  std::string code_diff;          // unified diff from the slow kernel to the fast one
  std::string category;           // e.g. "pipelining", "synchronization", "vectorization"
  std::vector<std::string> tags;  // diagnoser tags the tuple addresses (no_overlap, ...)
  tuple_provenance provenance;
  std::optional<std::vector<float>> embedding;
};

void to_json(nlohmann::json& j, const tuple_provenance& p);
void to_json(nlohmann::json& j, const experience_tuple& t);
// invalid_argument naming the field when `j` is not a tuple; `id`, `bottleneck` and
// `code_diff` are required, the rest defaults to empty.
result<experience_tuple> experience_tuple_from_json(const nlohmann::json& j);

// A content id: a hash of the bottleneck and the code diff, so the same motif distilled twice
// gets the same id.
std::string derive_tuple_id(const experience_tuple& t);

}  // namespace aopt::agent
