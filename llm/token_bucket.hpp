// token_bucket: the requests-per-minute limiter of the gateway. Holds up to `capacity` tokens,
// refilled continuously at rate/60 per second, starting full; each request takes one.
//
// The clock is injected, so tests drive it without sleeping.
//
// Thread-safety: not thread-safe; the gateway calls it under its lock.
#pragma once

#include <chrono>
#include <functional>

namespace aopt::llm {

using steady_clock_fn = std::function<std::chrono::steady_clock::time_point()>;

class token_bucket {
 public:
  // REQUIRES: per_minute > 0, capacity >= 1. A null clock means steady_clock::now.
  token_bucket(double per_minute, double capacity, steady_clock_fn clock);

  // Takes one token if there is one.
  bool try_acquire();

  // How long until a token is there; zero when one is.
  std::chrono::steady_clock::duration time_until_available();

 private:
  void refill();

  double per_second_;
  double capacity_;
  steady_clock_fn clock_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace aopt::llm
