// Content hashes: the keys of the evaluation cache and the LLM response cache.
//
// XXH3 128-bit over a sequence of parts, each preceded by its length as 8 little-endian bytes,
// so ("ab", "c") and ("a", "bc") hash differently. The result is 32 lowercase hex digits of
// XXH3's canonical (big-endian) form, the same on every platform.
//
// Persistent format: cache keys on disk are these hashes. Do not change the framing, the
// algorithm or the hex form without a storage migration (or the caches silently miss).
//
// Thread-safety: content_hasher is a value type used by one thread at a time; content_hash() is
// reentrant.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace aopt {

// Hashes parts one at a time, for callers that assemble a key from many pieces.
class content_hasher {
 public:
  content_hasher();
  ~content_hasher();
  content_hasher(content_hasher&&) noexcept;
  content_hasher& operator=(content_hasher&&) noexcept;
  content_hasher(const content_hasher&) = delete;
  content_hasher& operator=(const content_hasher&) = delete;

  content_hasher& add(std::string_view part);

  // The hash of the parts added so far; more parts may still be added afterwards.
  std::string hex() const;

 private:
  struct state;
  std::unique_ptr<state> state_;  // never null except after a move
};

std::string content_hash(std::initializer_list<std::string_view> parts);
std::string content_hash(const std::vector<std::string>& parts);

}  // namespace aopt
