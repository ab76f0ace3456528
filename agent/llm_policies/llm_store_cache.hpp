// store_response_cache: the gateway's response cache over the database's llm_cache column
// family, so that a resumed or repeated campaign replays LLM answers instead of calling the
// endpoint again (docs/design.md §4). Entries are written with the WAL as they arrive, before the step
// that asked for them is evaluated.
//
// Thread-safety: as storage::store, which allows concurrent calls.
#pragma once

#include "llm/response_cache.hpp"
#include "storage/store.hpp"

namespace aopt::agent {

class store_response_cache final : public llm::response_cache {
 public:
  // `db` must outlive the cache.
  explicit store_response_cache(storage::store& db) : db_(db) {}

  result<std::optional<nlohmann::json>> get(const std::string& key) override;
  status put(const std::string& key, const nlohmann::json& value) override;

 private:
  storage::store& db_;
};

}  // namespace aopt::agent
