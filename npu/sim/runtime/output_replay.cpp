#include "output_replay.hpp"

#include <algorithm>
#include <bitset>
#include <cstring>

namespace aopt::sim {

output_replay::output_replay(uint64_t bytes, const byte_block* delivered)
    : bytes_(bytes), delivered_(delivered), covered_((bytes + 63) / 64, 0) {}

// Compares the delivered bytes at [at, at + n) with `expected`, what the replay leaves there,
// keeping the lowest difference.
void output_replay::compare(uint64_t at, const uint8_t* expected, uint64_t n) {
  if (delivered_ == nullptr || at >= delivered_->size() || at >= first_changed_) return;
  n = std::min<uint64_t>(n, delivered_->size() - at);
  const uint8_t* actual = delivered_->data() + at;
  if (std::memcmp(actual, expected, n) == 0) return;
  for (uint64_t b = 0; b < n && at + b < first_changed_; ++b) {
    if (actual[b] != expected[b]) {
      first_changed_ = at + b;
      replayed_value_ = expected[b];
      return;
    }
  }
}

// Settles the bytes of [at, at + n) that no write settled before; runs of unsettled bytes are
// compared at once.
void output_replay::settle_bytes(uint64_t at, const uint8_t* expected, uint64_t n) {
  const uint64_t end = at + n;
  uint64_t run = at;  // start of the run of unsettled bytes not yet compared
  for (uint64_t b = at; b < end;) {
    uint64_t& word = covered_[b / 64];
    const auto bit = static_cast<unsigned>(b % 64);
    const uint64_t span = std::min<uint64_t>(64 - bit, end - b);
    const uint64_t mask = (span == 64 ? ~uint64_t{0} : ((uint64_t{1} << span) - 1)) << bit;
    const uint64_t unsettled = mask & ~word;
    if (unsettled != mask) {
      compare(run, expected + (run - at), b - run);
      for (uint64_t k = 0; k < span; ++k) {
        if ((unsettled >> (bit + k)) & 1) compare(b + k, expected + (b + k - at), 1);
      }
      run = b + span;
    }
    word |= mask;
    b += span;
  }
  compare(run, expected + (run - at), end - run);
}

void output_replay::settle_write(uint64_t at, const uint8_t* data, uint64_t n) {
  // A write into the allocation padding after the output settles none of its bytes.
  if (at >= bytes_) return;
  settle_bytes(at, data, std::min<uint64_t>(n, bytes_ - at));
}

void output_replay::settle_initial(const std::vector<uint8_t>& initial) {
  settle_bytes(0, initial.data(), std::min<uint64_t>(bytes_, initial.size()));
}

uint64_t output_replay::uncovered_bytes() const {
  uint64_t count = 0;
  for (size_t w = 0; w < covered_.size(); ++w) {
    count += std::bitset<64>(~covered_[w]).count();
  }
  // The bits past the last byte were never covered.
  return count - (covered_.size() * 64 - bytes_);
}

uint64_t output_replay::first_uncovered() const {
  for (size_t w = 0; w < covered_.size(); ++w) {
    if (~covered_[w] == 0) continue;
    uint64_t at = w * 64;
    for (uint64_t word = covered_[w]; (word & 1) != 0; word >>= 1) ++at;
    return at < bytes_ ? at : none;
  }
  return none;
}

}  // namespace aopt::sim
