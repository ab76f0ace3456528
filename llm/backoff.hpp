// Retry delays: exponential backoff with jitter, and the Retry-After header of a 429.
//
// Thread-safety: backoff is not thread-safe (it owns a random generator); guard it.
// parse_retry_after is reentrant.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

namespace aopt::llm {

class backoff {
 public:
  // REQUIRES: 0 < initial <= max.
  backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max, uint64_t seed);

  // The delay before retry `retry` (1 = the first retry): d = min(max, initial * 2^(retry-1)),
  // drawn uniformly from [d/2, d]. The jitter spreads out clients that failed together; the
  // lower bound keeps the wait meaningful.
  std::chrono::milliseconds delay(uint32_t retry);

 private:
  std::chrono::milliseconds initial_;
  std::chrono::milliseconds max_;
  std::mt19937_64 rng_;
};

// The delay a Retry-After header asks for: its delta-seconds form ("7", "0.5" is tolerated) or
// its HTTP-date form ("Wed, 21 Oct 2015 07:28:00 GMT", the time left after `now`, 0 for a date
// already past); nullopt for an absent, negative or unreadable value (the caller then uses its
// backoff).
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace aopt::llm
