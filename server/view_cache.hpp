// Computed API views (campaign documents built from RocksDB scans and JSON parsing) kept
// until the campaign changes. The version of a view is the event hub's campaign_version (or
// last_id for views over every campaign): every change of a campaign the daemon makes publishes
// an event, so an unchanged version means an unchanged view. Read the version before computing,
// so a change that lands during the computation makes the stored entry stale, never wrong.
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
  using view = std::shared_ptr<const nlohmann::json>;

  // The stored view of `key` when it was computed at `version`; otherwise compute() runs
  // (without the lock held) and its value is stored. Errors are returned, not stored.
  result<view> get(const std::string& key, uint64_t version,
                   const std::function<result<nlohmann::json>()>& compute);

 private:
  struct entry {
    uint64_t version = 0;
    view value;
  };
  std::mutex mutex_;
  std::map<std::string, entry> entries_;  // guarded by mutex_
};

}  // namespace aopt::server
