// A directory of compiled object files (and linked executables) keyed by a content hash of
// everything that determines them (toolchain fingerprint, flags, sources). It lets a Stage I step
// (new tiling program T, same kernel K) recompile only the host translation unit, and Stage II only
// the kernel one.
//
// Entries are written to a temporary name and renamed, so concurrent evaluations (and several
// aopt processes sharing the directory) never see a half-written object; two evaluations that
// miss on the same key both compile and the last rename wins with identical content. The cache
// is bounded: past `max_bytes`, the least recently used entries are removed.
//
// Nothing shared is writable through a candidate's scratch directory: fetch() and store() copy
// (never hard-link, which would let a candidate truncate the shared file through its own
// name), entries are read-only (0444), and each entry ends with a hash of its object that
// fetch() checks, so a damaged entry (truncated, rewritten) is dropped and recompiled instead
// of breaking every later build of the operator. The sandbox keeps candidates out of the cache
// directory altogether (base/sandbox.hpp); the hash is the second line.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.hpp"

namespace aopt::npu {

struct compile_cache_stats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t stores = 0;
  uint64_t damaged = 0;  // entries whose hash did not match: removed, counted as misses
};

class compile_cache {
 public:
  // REQUIRES: dir is writable (created on first store when missing).
  explicit compile_cache(std::filesystem::path dir, uint64_t max_bytes = 4ull << 30);

  // A 128-bit xxh3 hash, in hex, of the parts (length-prefixed, so part boundaries matter).
  static std::string key_of(std::initializer_list<std::string_view> parts);

  // Copies the cached object for `key` to `destination` (a new file, read-only; also executable
  // when `executable`: a linked candidate). Returns false on a miss, including a damaged entry
  // (which it removes). Counts a hit or a miss.
  bool fetch(const std::string& key, const std::filesystem::path& destination,
             bool executable = false);

  // Adds a copy of `object` under `key`.
  status store(const std::string& key, const std::filesystem::path& object);

  // A table derived from the toolchain and kept beside the objects (the names the link's
  // libraries define, symbol_check.hpp), under a key of the stamps of what it was derived from:
  // its bytes, or nothing on a miss or a damaged entry. Neither counts as a hit, miss or store.
  std::optional<std::string> fetch_blob(const std::string& key);
  status store_blob(const std::string& key, std::string_view bytes);

  compile_cache_stats stats() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path entry_path(const std::string& key) const;
  // The entry's bytes without their trailer, or nothing (a damaged entry is removed).
  std::optional<std::string> read_entry(const std::string& key);
  status write_entry(const std::string& key, std::string_view bytes);
  void prune_if_due();

  const std::filesystem::path dir_;
  const uint64_t max_bytes_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> stores_{0};
  std::atomic<uint64_t> damaged_{0};
  std::atomic<uint64_t> temp_counter_{0};
};

}  // namespace aopt::npu
