// The RocksDB store of one aopt daemon (docs/design.md §4): campaigns, episode state, candidates, the
// evaluation and LLM response caches, the experience bank, and metadata.
//
// Values are JSON (stored as compact JSON text); callers convert their types to and from
// nlohmann::json. Every write goes through the write-ahead log; with store_options::sync (the
// default) a write returns only after the log reached the disk.
//
// Usage:
//   auto db = storage::store::open(".aopt/db");
//   if (!db.ok()) return db.error();
//   storage::transition t;
//   t.campaign = "c1"; t.op = "add_custom"; t.episode_state = state_json;
//   t.candidate = storage::candidate_record{seq, candidate_json};
//   t.eval_cache.push_back({eval_key, result_json});
//   AOPT_RETURN_IF_ERROR((*db)->commit_transition(t));  // all of it, or none of it
//
// ON-DISK LAYOUT. Do not change: persistent format. Column family names, key formats and the
// meta keys below are read by every later version of aopt; changing one needs a schema version
// bump and a migration.
//
//   column family | key                                   | value (JSON)
//   --------------+---------------------------------------+-------------------------------------
//   campaigns     | <campaign>                            | campaign record
//   episodes      | <campaign> "/" <op>                   | episode state
//   candidates    | <campaign> "/" <op> "/" <seq>         | candidate record
//                 |   <seq>: 20 decimal digits, zero-padded, so keys sort in seq order
//   eval_cache    | <content hash, 32 hex digits>         | evaluation result
//   llm_cache     | <content hash, 32 hex digits>         | LLM response + usage
//   bank          | <tuple id>                            | experience tuple (+ embedding)
//   meta          | "schema_version"                      | integer, see schema_version
//                 | any other key (put_meta)              | caller-defined
//   events        | <id: 20 decimal digits, zero-padded>  | a daemon progress event (the newest
//                 |                                       | ones only; see append_event)
//
// Names: a campaign id, op name or tuple id is non-empty and contains no '/' and no NUL byte;
// cache keys are non-empty. Violations are invalid_argument.
//
// Thread-safety: a store may be used from many threads at once without outside locking (RocksDB
// serializes writers itself). A commit_transition is atomic for readers too: a concurrent get or
// list sees all of its writes or none. list_* read from one consistent snapshot.
//
// Errors: not_found when a key is absent; invalid_argument for a bad name; failed_precondition
// when the database is locked by another process or has an incompatible schema; data_loss when
// a stored value is not valid JSON; internal for other RocksDB failures. Messages name the
// database path, the column family and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/scratch_dir.hpp"
#include "base/status.hpp"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace aopt::storage {

// The layout version this build reads and writes. A database stamped with another version is
// refused on open. Do not change without a migration.
inline constexpr int64_t schema_version = 1;

struct store_options {
  // Create the database (and its folders) when the path holds none.
  bool create_if_missing = true;
  // fsync the write-ahead log on every write. Without it a write survives a process crash
  // (kill -9) but may be lost on power failure or an OS crash; with it a write costs a disk
  // flush (milliseconds on SSDs). Keep it on for daemons; tests and benchmarks may turn it off.
  bool sync = true;
  // Read the database alongside a process that has it open for writing (a running campaign or
  // daemon), without taking its lock: a RocksDB secondary instance, whose info log goes to a
  // scratch folder removed on close. Reads see the database as it was at open; writes fail with
  // failed_precondition. The database must exist, with every column family of this schema.
  bool read_only = false;
};

// A stored value and its key (the id, op name or tuple id; without the campaign prefix).
struct keyed_value {
  std::string key;
  nlohmann::json value;
};

struct candidate_record {
  uint64_t seq = 0;
  nlohmann::json value;
};

struct cache_entry {
  std::string key;  // content hash (see base/content_hash.hpp)
  nlohmann::json value;
};

// One state transition of an episode, written as one atomic, logged batch. Only `campaign`,
// `op` and `episode_state` are required.
struct transition {
  std::string campaign;
  std::string op;
  nlohmann::json episode_state;                   // the new state; replaces the stored one
  std::optional<candidate_record> candidate;      // absent for a state-only transition
  std::vector<cache_entry> eval_cache;            // evaluations done in this step
  std::vector<cache_entry> llm_cache;             // LLM answers received in this step
  std::optional<nlohmann::json> campaign_record;  // e.g. a progress or status update
};

class store {
 public:
  // Opens (or creates) the database at `path`, creating missing column families. A fresh
  // database is stamped with schema_version. Errors: failed_precondition when another process
  // (or another store in this one) has it open, or when its schema version differs (the
  // message names the path and both versions); not_found when it is missing and
  // !create_if_missing.
  static result<std::unique_ptr<store>> open(const std::filesystem::path& path,
                                             const store_options& options = {});
  // open() with store_options::read_only.
  static result<std::unique_ptr<store>> open_read_only(const std::filesystem::path& path);

  // Closes the database; every write that returned ok stays.
  ~store();
  store(const store&) = delete;
  store& operator=(const store&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Reads every table file and checks its checksums, so a damaged file is found before a summary
  // built on what could still be read claims anything. Reads the whole database: for commands
  // that report on it (aopt status), not for every open. Errors: data_loss naming the file.
  status verify() const;

  // --- campaigns ---
  status put_campaign(const std::string& id, const nlohmann::json& record);
  result<nlohmann::json> get_campaign(const std::string& id) const;
  // Sorted by id.
  result<std::vector<keyed_value>> list_campaigns() const;
  // Removes the campaign record and all its episodes and candidates in one atomic batch (the
  // caches and the bank are shared by all campaigns and stay). Deleting an unknown id is ok.
  status delete_campaign(const std::string& id);

  // --- episodes and candidates ---
  status commit_transition(const transition& t);
  result<nlohmann::json> get_episode(const std::string& campaign, const std::string& op) const;
  // The episodes of one campaign, keyed by op name, sorted by op name.
  result<std::vector<keyed_value>> list_episodes(const std::string& campaign) const;
  // The same episodes as stored JSON text, unparsed (key = op name), for readers that parse
  // only what changed.
  result<std::vector<std::pair<std::string, std::string>>> list_episode_texts(
      const std::string& campaign) const;
  // The candidates of one episode in seq order.
  result<std::vector<candidate_record>> list_candidates(const std::string& campaign,
                                                        const std::string& op) const;
  result<nlohmann::json> get_candidate(const std::string& campaign, const std::string& op,
                                       uint64_t seq) const;

  // --- caches (keys: content hashes) ---
  result<nlohmann::json> get_eval_cache(const std::string& key) const;
  status put_eval_cache(const std::string& key, const nlohmann::json& value);
  result<nlohmann::json> get_llm_cache(const std::string& key) const;
  status put_llm_cache(const std::string& key, const nlohmann::json& value);

  // --- experience bank ---
  status put_tuple(const std::string& id, const nlohmann::json& tuple);
  result<nlohmann::json> get_tuple(const std::string& id) const;
  // Erasing an unknown id is ok.
  status erase_tuple(const std::string& id);
  // Sorted by id.
  result<std::vector<keyed_value>> list_tuples() const;
  result<uint64_t> count_tuples() const;

  // --- meta ---
  // "schema_version" is reserved: put_meta refuses it (invalid_argument).
  // The daemon's progress events, so that their ids keep increasing and a client can catch up
  // across a daemon restart. Stores event `id` and, every 1024 ids, drops those more than `keep`
  // ids older, in one write. Not synced: a lost tail costs a live view a few events, never a
  // result.
  status append_event(uint64_t id, const nlohmann::json& event, uint64_t keep);
  // The newest `n` stored events, oldest first, with their ids.
  result<std::vector<std::pair<uint64_t, nlohmann::json>>> recent_events(size_t n) const;

  status put_meta(const std::string& key, const nlohmann::json& value);
  result<nlohmann::json> get_meta(const std::string& key) const;

 private:
  enum class cf {
    campaigns,
    episodes,
    candidates,
    eval_cache,
    llm_cache,
    bank,
    meta,
    events,
    count
  };

  store(std::filesystem::path path, const store_options& options);

  status check_schema();
  // failed_precondition on a read_only store.
  status writable() const;
  rocksdb::ColumnFamilyHandle* handle(cf family) const;
  status put(cf family, const std::string& key, const nlohmann::json& value);
  result<nlohmann::json> get(cf family, const std::string& key) const;
  status erase(cf family, const std::string& key);
  // Every (key, value) whose key starts with `prefix`, in key order, with the prefix removed.
  result<std::vector<keyed_value>> scan(cf family, const std::string& prefix) const;

  std::filesystem::path path_;
  store_options options_;
  // The secondary instance's own folder (read_only); declared before db_ to outlive it.
  std::optional<scratch_dir> secondary_dir_;
  // Handles of every column family on disk (ours and any a newer aopt added); destroyed before
  // db_. handles_[i] for i < cf::count is ours, in enum order.
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<rocksdb::DB> db_;  // non-null once open() succeeded
};

}  // namespace aopt::storage
