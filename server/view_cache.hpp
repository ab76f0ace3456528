// Computed API views (campaign documents built from RocksDB scans and JSON parsing) kept, as
// the JSON text the API sends, until the campaign changes: 100 dashboards polling one campaign
// then cost one scan and one serialization per change, and each poll only copies the text. The
// version of a view is the event hub's campaign_version (or last_id for views over every
// campaign): every change of a campaign the daemon makes publishes an event, so an unchanged
// version means an unchanged view. Read the version before computing, so a change that lands
// during the computation makes the stored entry stale, never wrong.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::server {

class view_cache {
 public:
  // A view serialized with nlohmann::json::dump(), the API's response body.
  using body = std::shared_ptr<const std::string>;

  // The stored text of `key` when it was computed at `version`; otherwise compute() runs and
  // its value is serialized (both without the lock held) and stored. Errors are returned, not
  // stored.
  result<body> get(const std::string& key, uint64_t version,
                   const std::function<result<nlohmann::json>()>& compute);

 private:
  struct entry {
    uint64_t version = 0;
    body text;
  };
  std::mutex mutex_;
  std::map<std::string, entry> entries_;  // guarded by mutex_
};

}  // namespace aopt::server
