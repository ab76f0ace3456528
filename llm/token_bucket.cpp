#include "llm/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace aopt::llm {

token_bucket::token_bucket(double per_minute, double capacity, steady_clock_fn clock)
    : per_second_(per_minute / 60.0),
      capacity_(std::max(capacity, 1.0)),
      clock_(clock ? std::move(clock) : steady_clock_fn(&std::chrono::steady_clock::now)),
      tokens_(capacity_),
      last_(clock_()) {}

void token_bucket::refill() {
  const auto now = clock_();
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(capacity_, tokens_ + elapsed * per_second_);
  last_ = now;
}

bool token_bucket::try_acquire() {
  refill();
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

std::chrono::steady_clock::duration token_bucket::time_until_available() {
  refill();
  if (tokens_ >= 1.0) return std::chrono::steady_clock::duration::zero();
  const double seconds = (1.0 - tokens_) / per_second_;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::ceil(seconds * 1e6) / 1e6));
}

}  // namespace aopt::llm
