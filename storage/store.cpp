#include "storage/store.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <system_error>
#include <utility>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

namespace aopt::storage {

namespace {

using nlohmann::json;

// Do not change: persistent format (see the header). Index = store::cf value.
constexpr const char* cf_names[] = {"campaigns", "episodes", "candidates", "eval_cache",
                                    "llm_cache", "bank",     "meta",       "events"};
constexpr const char schema_key[] = "schema_version";
constexpr char separator = '/';
// The byte after the separator: [prefix + '/', prefix + '0') holds exactly the keys under prefix.
constexpr char after_separator = separator + 1;

status check_name(const char* what, const std::string& name) {
  if (name.empty()) return invalid_argument(std::string("storage: empty ") + what);
  if (name.find(separator) != std::string::npos || name.find('\0') != std::string::npos)
    return invalid_argument(std::string("storage: ") + what + " '" + name +
                            "' contains '/' or a NUL byte");
  return status::ok_status();
}

status check_key(const std::string& key) {
  if (key.empty()) return invalid_argument("storage: empty key");
  return status::ok_status();
}

std::string episode_key(const std::string& campaign, const std::string& op) {
  return campaign + separator + op;
}

std::string seq_text(uint64_t seq) {
  char digits[21];
  std::snprintf(digits, sizeof digits, "%020" PRIu64, seq);
  return digits;
}

std::string candidate_key(const std::string& campaign, const std::string& op, uint64_t seq) {
  return episode_key(campaign, op) + separator + seq_text(seq);
}

// Invalid UTF-8 in a string (a source file in Latin-1, say) is stored as U+FFFD rather than
// failing the write: losing a comment's accent is better than losing an episode's progress.
std::string encode(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_lock_error(const rocksdb::Status& s) {
  // RocksDB reports a held LOCK file as an IOError: "lock hold by current process" when this
  // process holds it, "While lock file: ..." when fcntl() says another process does.
  const std::string text = s.ToString();
  return s.IsIOError() && (text.find("lock hold by current process") != std::string::npos ||
                           text.find("While lock file") != std::string::npos);
}

}  // namespace

store::store(std::filesystem::path path, const store_options& options)
    : path_(std::move(path)), options_(options) {}

store::~store() {
  if (!db_) return;
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  // Close() flushes nothing we need (the WAL already holds every write); its status only says
  // whether background work ended cleanly, which no caller could act on in a destructor.
  db_->Close().PermitUncheckedError();
}

result<std::unique_ptr<store>> store::open(const std::filesystem::path& path,
                                           const store_options& options) {
  if (path.empty()) return invalid_argument("storage: empty database path");
  const std::string where = "storage: database " + path.string();

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.keep_log_file_num = 5;
  db_options.max_log_file_size = 16 << 20;

  std::error_code ec;
  bool exists = std::filesystem::exists(path / "CURRENT", ec);
  if (!exists && (options.read_only || !options.create_if_missing))
    return not_found(where + ": no database there");
  if (!exists) {
    std::filesystem::create_directories(path, ec);
    if (ec) return internal_error(where + ": cannot create the folder: " + ec.message());
  }

  // Open every column family on disk, also those a newer aopt may have added, so that the schema
  // check below (not RocksDB) explains why such a database is refused.
  std::vector<std::string> names(std::begin(cf_names), std::end(cf_names));
  if (exists) {
    std::vector<std::string> on_disk;
    auto listed = rocksdb::DB::ListColumnFamilies(db_options, path.string(), &on_disk);
    if (!listed.ok() && !is_lock_error(listed))
      return internal_error(where + ": " + listed.ToString());
    for (auto& name : on_disk)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (std::find(names.begin(), names.end(), rocksdb::kDefaultColumnFamilyName) == names.end())
    names.push_back(rocksdb::kDefaultColumnFamilyName);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& name : names) descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());

  std::unique_ptr<store> s(new store(path, options));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status opened;
  if (options.read_only) {
    result<scratch_dir> secondary =
        scratch_dir::create(std::filesystem::temp_directory_path(), "aopt-store-reader-");
    if (!secondary.ok()) return secondary.error().with_context(where);
    s->secondary_dir_ = std::move(*secondary);
    db_options.max_open_files = -1;  // required of a secondary instance
    opened =
        rocksdb::DB::OpenAsSecondary(db_options, path.string(), s->secondary_dir_->path().string(),
                                     descriptors, &s->handles_, &raw);
  } else {
    opened = rocksdb::DB::Open(db_options, path.string(), descriptors, &s->handles_, &raw);
  }
  if (!opened.ok()) {
    if (is_lock_error(opened))
      return failed_precondition(where +
                                 " is locked: another aopt process (or another store in this "
                                 "one) has it open");
    return internal_error(where + ": " + opened.ToString());
  }
  s->db_.reset(raw);
  AOPT_RETURN_IF_ERROR(s->check_schema());
  return s;
}

result<std::unique_ptr<store>> store::open_read_only(const std::filesystem::path& path) {
  store_options options;
  options.read_only = true;
  return open(path, options);
}

status store::verify() const {
  const rocksdb::Status s = db_->VerifyChecksum();
  if (s.ok()) return status::ok_status();
  return data_loss("storage: database " + path_.string() + " is damaged: " + s.ToString());
}

status store::writable() const {
  if (!options_.read_only) return status::ok_status();
  return failed_precondition("storage: database " + path_.string() +
                             " is open read-only here; writes go through the process that "
                             "has it open");
}

status store::check_schema() {
  auto stored = get(cf::meta, schema_key);
  if (!stored.ok() && stored.error().code() == status_code::not_found && !options_.read_only)
    return put(cf::meta, schema_key, schema_version);
  // A reader finds an existing database without its schema version: a damaged table file can
  // hide the key (RocksDB reads what it can), so this is no "empty database".
  if (!stored.ok() && stored.error().code() == status_code::not_found) {
    const status damaged = verify();
    return data_loss("storage: database " + path_.string() + " holds no schema version: " +
                     (damaged.ok() ? "damaged (a table file lost it), or not a database of aopt"
                                   : damaged.message()));
  }
  if (!stored.ok()) return stored.error();
  if (!stored->is_number_integer())
    return data_loss("storage: database " + path_.string() + ": meta '" + schema_key +
                     "' is not an integer: " + stored->dump());
  auto found = stored->get<int64_t>();
  if (found != schema_version)
    return failed_precondition(
        "storage: database " + path_.string() + " has schema version " + std::to_string(found) +
        ", but this aopt reads schema version " + std::to_string(schema_version) +
        "; open it with a matching aopt, or use another database folder (--db, storage.db)");
  return status::ok_status();
}

rocksdb::ColumnFamilyHandle* store::handle(cf family) const {
  return handles_[static_cast<size_t>(family)];
}

status store::put(cf family, const std::string& key, const json& value) {
  AOPT_RETURN_IF_ERROR(writable());
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  auto s = db_->Put(wo, handle(family), key, encode(value));
  if (!s.ok())
    return internal_error("storage: database " + path_.string() + ": put " +
                          cf_names[static_cast<size_t>(family)] + " '" + key +
                          "': " + s.ToString());
  return status::ok_status();
}

result<json> store::get(cf family, const std::string& key) const {
  const char* name = cf_names[static_cast<size_t>(family)];
  std::string text;
  auto s = db_->Get(rocksdb::ReadOptions(), handle(family), key, &text);
  if (s.IsNotFound()) return not_found(std::string("storage: ") + name + ": no key '" + key + "'");
  if (!s.ok())
    return internal_error("storage: database " + path_.string() + ": get " + name + " '" + key +
                          "': " + s.ToString());
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded())
    return data_loss("storage: database " + path_.string() + ": " + name + " '" + key +
                     "' holds no valid JSON");
  return value;
}

status store::erase(cf family, const std::string& key) {
  AOPT_RETURN_IF_ERROR(writable());
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  auto s = db_->Delete(wo, handle(family), key);
  if (!s.ok())
    return internal_error("storage: database " + path_.string() + ": delete " +
                          cf_names[static_cast<size_t>(family)] + " '" + key +
                          "': " + s.ToString());
  return status::ok_status();
}

result<std::vector<keyed_value>> store::scan(cf family, const std::string& prefix) const {
  const char* name = cf_names[static_cast<size_t>(family)];
  std::vector<keyed_value> out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), handle(family)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string key = it->key().ToString();
    json value =
        json::parse(it->value().data(), it->value().data() + it->value().size(), nullptr, false);
    if (value.is_discarded())
      return data_loss("storage: database " + path_.string() + ": " + name + " '" + key +
                       "' holds no valid JSON");
    out.push_back({key.substr(prefix.size()), std::move(value)});
  }
  if (!it->status().ok())
    return internal_error("storage: database " + path_.string() + ": scan " + name + ": " +
                          it->status().ToString());
  return out;
}

status store::put_campaign(const std::string& id, const json& record) {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", id));
  return put(cf::campaigns, id, record);
}

result<json> store::get_campaign(const std::string& id) const {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", id));
  return get(cf::campaigns, id);
}

result<std::vector<keyed_value>> store::list_campaigns() const {
  return scan(cf::campaigns, "");
}

status store::delete_campaign(const std::string& id) {
  AOPT_RETURN_IF_ERROR(writable());
  AOPT_RETURN_IF_ERROR(check_name("campaign id", id));
  const std::string begin = id + separator, end = id + after_separator;
  rocksdb::WriteBatch batch;
  rocksdb::Status s = batch.Delete(handle(cf::campaigns), id);
  if (s.ok()) s = batch.DeleteRange(handle(cf::episodes), begin, end);
  if (s.ok()) s = batch.DeleteRange(handle(cf::candidates), begin, end);
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  if (s.ok()) s = db_->Write(wo, &batch);
  if (!s.ok())
    return internal_error("storage: database " + path_.string() + ": delete campaign '" + id +
                          "': " + s.ToString());
  return status::ok_status();
}

status store::commit_transition(const transition& t) {
  AOPT_RETURN_IF_ERROR(writable());
  AOPT_RETURN_IF_ERROR(check_name("campaign id", t.campaign));
  AOPT_RETURN_IF_ERROR(check_name("op name", t.op));
  for (const auto& e : t.eval_cache) AOPT_RETURN_IF_ERROR(check_key(e.key));
  for (const auto& e : t.llm_cache) AOPT_RETURN_IF_ERROR(check_key(e.key));

  rocksdb::WriteBatch batch;
  rocksdb::Status s =
      batch.Put(handle(cf::episodes), episode_key(t.campaign, t.op), encode(t.episode_state));
  if (s.ok() && t.candidate)
    s = batch.Put(handle(cf::candidates), candidate_key(t.campaign, t.op, t.candidate->seq),
                  encode(t.candidate->value));
  for (size_t i = 0; s.ok() && i < t.eval_cache.size(); ++i)
    s = batch.Put(handle(cf::eval_cache), t.eval_cache[i].key, encode(t.eval_cache[i].value));
  for (size_t i = 0; s.ok() && i < t.llm_cache.size(); ++i)
    s = batch.Put(handle(cf::llm_cache), t.llm_cache[i].key, encode(t.llm_cache[i].value));
  if (s.ok() && t.campaign_record)
    s = batch.Put(handle(cf::campaigns), t.campaign, encode(*t.campaign_record));
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  if (s.ok()) s = db_->Write(wo, &batch);
  if (!s.ok())
    return internal_error("storage: database " + path_.string() + ": transition of " +
                          episode_key(t.campaign, t.op) + ": " + s.ToString());
  return status::ok_status();
}

result<json> store::get_episode(const std::string& campaign, const std::string& op) const {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", campaign));
  AOPT_RETURN_IF_ERROR(check_name("op name", op));
  return get(cf::episodes, episode_key(campaign, op));
}

result<std::vector<keyed_value>> store::list_episodes(const std::string& campaign) const {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", campaign));
  return scan(cf::episodes, campaign + separator);
}

result<std::vector<std::pair<std::string, std::string>>> store::list_episode_texts(
    const std::string& campaign) const {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", campaign));
  const std::string prefix = campaign + separator;
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), handle(cf::episodes)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next())
    out.emplace_back(it->key().ToString().substr(prefix.size()), it->value().ToString());
  if (!it->status().ok())
    return internal_error("storage: database " + path_.string() +
                          ": scan episodes: " + it->status().ToString());
  return out;
}

result<std::vector<candidate_record>> store::list_candidates(const std::string& campaign,
                                                             const std::string& op) const {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", campaign));
  AOPT_RETURN_IF_ERROR(check_name("op name", op));
  auto entries = scan(cf::candidates, episode_key(campaign, op) + separator);
  if (!entries.ok()) return entries.error();
  std::vector<candidate_record> out;
  out.reserve(entries->size());
  for (auto& e : *entries) {
    char* end = nullptr;
    uint64_t seq = std::strtoull(e.key.c_str(), &end, 10);
    if (e.key.size() != 20 || end != e.key.c_str() + e.key.size())
      return data_loss("storage: database " + path_.string() + ": candidates key '" +
                       episode_key(campaign, op) + separator + e.key +
                       "' has no 20-digit sequence number");
    out.push_back({seq, std::move(e.value)});
  }
  return out;
}

result<json> store::get_candidate(const std::string& campaign, const std::string& op,
                                  uint64_t seq) const {
  AOPT_RETURN_IF_ERROR(check_name("campaign id", campaign));
  AOPT_RETURN_IF_ERROR(check_name("op name", op));
  return get(cf::candidates, candidate_key(campaign, op, seq));
}

result<json> store::get_eval_cache(const std::string& key) const {
  AOPT_RETURN_IF_ERROR(check_key(key));
  return get(cf::eval_cache, key);
}

status store::put_eval_cache(const std::string& key, const json& value) {
  AOPT_RETURN_IF_ERROR(check_key(key));
  return put(cf::eval_cache, key, value);
}

result<json> store::get_llm_cache(const std::string& key) const {
  AOPT_RETURN_IF_ERROR(check_key(key));
  return get(cf::llm_cache, key);
}

status store::put_llm_cache(const std::string& key, const json& value) {
  AOPT_RETURN_IF_ERROR(check_key(key));
  return put(cf::llm_cache, key, value);
}

status store::put_tuple(const std::string& id, const json& tuple) {
  AOPT_RETURN_IF_ERROR(check_name("tuple id", id));
  return put(cf::bank, id, tuple);
}

result<json> store::get_tuple(const std::string& id) const {
  AOPT_RETURN_IF_ERROR(check_name("tuple id", id));
  return get(cf::bank, id);
}

status store::erase_tuple(const std::string& id) {
  AOPT_RETURN_IF_ERROR(check_name("tuple id", id));
  return erase(cf::bank, id);
}

result<std::vector<keyed_value>> store::list_tuples() const {
  return scan(cf::bank, "");
}

result<uint64_t> store::count_tuples() const {
  uint64_t n = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), handle(cf::bank)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  if (!it->status().ok())
    return internal_error("storage: database " + path_.string() +
                          ": count bank: " + it->status().ToString());
  return n;
}

status store::append_event(uint64_t id, const json& event, uint64_t keep) {
  AOPT_RETURN_IF_ERROR(writable());
  rocksdb::WriteBatch batch;
  rocksdb::Status s = batch.Put(handle(cf::events), seq_text(id), encode(event));
  // Every range deletion leaves a tombstone for readers to skip, so old events go in bulk.
  constexpr uint64_t trim_every = 1024;
  if (s.ok() && keep > 0 && id > keep && id % trim_every == 0)
    s = batch.DeleteRange(handle(cf::events), seq_text(0), seq_text(id - keep + 1));
  rocksdb::WriteOptions wo;
  wo.sync = false;
  if (s.ok()) s = db_->Write(wo, &batch);
  if (!s.ok())
    return internal_error("storage: database " + path_.string() + ": append event " +
                          std::to_string(id) + ": " + s.ToString());
  return status::ok_status();
}

result<std::vector<std::pair<uint64_t, json>>> store::recent_events(size_t n) const {
  std::vector<std::pair<uint64_t, json>> out;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), handle(cf::events)));
  for (it->SeekToLast(); it->Valid() && out.size() < n; it->Prev()) {
    const std::string key = it->key().ToString();
    json value =
        json::parse(it->value().data(), it->value().data() + it->value().size(), nullptr, false);
    uint64_t id = 0;
    if (value.is_discarded() || std::sscanf(key.c_str(), "%" SCNu64, &id) != 1)
      return data_loss("storage: database " + path_.string() + ": events '" + key +
                       "' is no stored event");
    out.emplace_back(id, std::move(value));
  }
  if (!it->status().ok())
    return internal_error("storage: database " + path_.string() +
                          ": scan events: " + it->status().ToString());
  std::reverse(out.begin(), out.end());
  return out;
}

status store::put_meta(const std::string& key, const json& value) {
  AOPT_RETURN_IF_ERROR(check_key(key));
  if (key == schema_key)
    return invalid_argument(std::string("storage: meta key '") + schema_key +
                            "' is reserved for the store itself");
  return put(cf::meta, key, value);
}

result<json> store::get_meta(const std::string& key) const {
  AOPT_RETURN_IF_ERROR(check_key(key));
  return get(cf::meta, key);
}

}  // namespace aopt::storage
