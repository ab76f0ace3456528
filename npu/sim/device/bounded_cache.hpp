// A map from keys to values bounded by the bytes its values hold: the oldest entry goes first
// when a new one would not fit. Used by the trusted process's caches of per-operator data (the
// reference's expected outputs, the shared input sets).
//
// Thread-safety: none; the owner locks.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>

namespace aopt::npu {

template <typename V>
class bounded_cache {
 public:
  explicit bounded_cache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // The value stored under `key`, nullptr when there is none.
  const V* find(const std::string& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second.value;
  }

  // Stores `value`, which holds `bytes` bytes, evicting the oldest entries until it fits. Stores
  // nothing and evicts nothing when `key` is held already or `value` alone exceeds the bound.
  void put(const std::string& key, V value, uint64_t bytes) {
    if (bytes > max_bytes_ || entries_.count(key) != 0) return;
    while (bytes_ + bytes > max_bytes_ && !order_.empty()) {
      auto oldest = entries_.find(order_.front());
      bytes_ -= oldest->second.bytes;
      entries_.erase(oldest);
      order_.pop_front();
    }
    entries_.emplace(key, entry{std::move(value), bytes});
    order_.push_back(key);
    bytes_ += bytes;
  }

 private:
  struct entry {
    V value;
    uint64_t bytes = 0;
  };
  uint64_t max_bytes_;
  std::map<std::string, entry> entries_;
  std::deque<std::string> order_;  // oldest first
  uint64_t bytes_ = 0;
};

}  // namespace aopt::npu
