#include "server/view_cache.hpp"

namespace aopt::server {

result<view_cache::body> view_cache::get(const std::string& key, uint64_t version,
                                         const std::function<result<nlohmann::json>()>& compute) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.version == version) return it->second.text;
  }
  result<nlohmann::json> computed = compute();
  if (!computed.ok()) return computed.error();
  body text = std::make_shared<const std::string>(computed->dump());
  std::lock_guard<std::mutex> lock(mutex_);
  entry& e = entries_[key];
  // Concurrent computations of one key: keep the newest.
  if (!e.text || e.version <= version) e = {version, text};
  return text;
}

}  // namespace aopt::server
