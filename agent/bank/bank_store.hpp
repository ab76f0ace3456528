// The experience bank in the store: near-duplicate detection on insert, JSONL export/import
// (a bank from another team merges in, deduplicated), and the counters of `aopt bank build`.
//
// Two tuples are near-identical when both their Bottleneck (word-set Jaccard) and their CodeDiff
// (changed-line-set Jaccard) similarities reach the bank.dedup_threshold; the first stored wins.
//
// Thread-safety: bank_writer is not thread-safe; the free functions are reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/bank/experience_tuple.hpp"
#include "base/status.hpp"
#include "storage/store.hpp"

namespace aopt::agent {

// min(Jaccard of Bottleneck words, Jaccard of the CodeDiff's +/- lines), in [0, 1].
double tuple_similarity(const experience_tuple& a, const experience_tuple& b);

// Every stored tuple, sorted by id; errors name the bad tuple.
result<std::vector<experience_tuple>> load_bank(const storage::store& db);

struct insert_outcome {
  std::string id;      // the stored tuple's id (the existing one's for a duplicate)
  bool added = false;  // false: duplicate of `id`
};

// Inserts tuples into the store unless a near-identical one is there already.
class bank_writer {
 public:
  // Loads the bank from `db` (kept open by the caller).
  static result<bank_writer> open(storage::store& db, double dedup_threshold);
  result<insert_outcome> insert(experience_tuple t);
  const std::vector<experience_tuple>& tuples() const { return tuples_; }

 private:
  bank_writer(storage::store& db, double threshold, std::vector<experience_tuple> tuples)
      : db_(&db), threshold_(threshold), tuples_(std::move(tuples)) {}
  storage::store* db_;
  double threshold_;
  std::vector<experience_tuple> tuples_;
};

// Counters of bank builds, summed over the experts rewound (meta key "bank_build").
struct bank_build_counts {
  uint64_t trajectories = 0;
  uint64_t steps_tried = 0;
  uint64_t pairs_kept = 0;
};
result<bank_build_counts> read_build_counts(const storage::store& db);

// Resumable builds: once an expert's tuples are stored, the builder records its rewind key
// (rewind_record_key) together with its counts. The record and the counters live in the same
// meta value, so they are written by one put: a build killed at any moment never counts an
// expert it did not record, and a rerun that skips recorded experts never counts one twice.
result<bool> is_rewound(const storage::store& db, const std::string& key);
// Adds `counts` and records `key` (for expert `op`); a key already recorded (a forced rebuild)
// replaces nothing and adds nothing.
status record_rewind(storage::store& db, const std::string& key, const std::string& op,
                     const bank_build_counts& counts);

// {"tuples", "by_category": {cat: n}, "by_policy", "by_expert", "trajectories", "steps_tried",
//  "pairs_kept"}
result<nlohmann::json> bank_stats(const storage::store& db);

// One tuple JSON per line, sorted by id.
status export_bank(const storage::store& db, const std::filesystem::path& file);

struct import_counts {
  uint64_t read = 0;
  uint64_t added = 0;
  uint64_t duplicates = 0;
};
// Merges the JSONL file into the bank; invalid_argument naming the line on a bad line (tuples
// before it stay imported).
result<import_counts> import_bank(storage::store& db, const std::filesystem::path& file,
                                  double dedup_threshold);

}  // namespace aopt::agent
