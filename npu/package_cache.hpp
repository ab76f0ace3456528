// The operator packages an evaluation worker has received, by content hash (issue 19): at most
// `capacity` of them, the least recently used going first when a new one does not fit. Bounded,
// so that a long-lived worker serving many campaigns keeps a fixed memory footprint; a package
// evicted and needed again is simply asked from the coordinator again.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "npu/op_package.hpp"

namespace aopt::npu {

class package_cache {
 public:
  // `capacity` is at least 1 (0 is taken as 1).
  explicit package_cache(size_t capacity);

  // The package with `hash`, marked most recently used; null when not cached.
  std::shared_ptr<const op_package> find(const std::string& hash);
  // Caches `package` under `hash` (replacing one already there), evicting the least recently
  // used packages beyond the capacity.
  void insert(const std::string& hash, std::shared_ptr<const op_package> package);

  size_t size() const;
  size_t capacity() const { return capacity_; }
  uint64_t evictions() const;

 private:
  using entry = std::pair<std::string, std::shared_ptr<const op_package>>;

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<entry> order_;  // most recently used first; guarded by mutex_
  std::unordered_map<std::string, std::list<entry>::iterator> index_;  // guarded by mutex_
  uint64_t evictions_ = 0;                                             // guarded by mutex_
};

}  // namespace aopt::npu
