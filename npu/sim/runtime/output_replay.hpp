// Whether an output as delivered is what its traced GM writes left (trace.hpp gm_write): every
// byte equal to the last traced write of it, or, where no write covered it, to the output as the
// kernel started (when that is known) or reported as written by no traced operation.
//
// The writes are replayed backwards, from the last to the first: a byte is settled by the first
// write that covers it going back, which is its last write going forward, and later (earlier)
// writes of it are ignored. So the check needs one bit per output byte, where a forward replay
// needed an image and a written-map of the output's size (16 MiB of fresh memory per 8 MiB
// output, which cost the judge more than the compare on these machines).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "byte_block.hpp"

namespace aopt::sim {

class output_replay {
 public:
  static constexpr uint64_t none = ~uint64_t{0};

  // `delivered`: the output's bytes as delivered (compared over the first min(size, bytes)).
  output_replay(uint64_t bytes, const byte_block* delivered);

  // The next write going backwards: `n` bytes of `data` written at byte `at`.
  // REQUIRES: at + n <= bytes.
  void settle_write(uint64_t at, const uint8_t* data, uint64_t n);

  // After every write: the bytes no write covered, compared against `initial` (the output as the
  // kernel started, of the output's size) when given.
  void settle_initial(const std::vector<uint8_t>& initial);

  uint64_t uncovered_bytes() const;
  uint64_t first_uncovered() const;  // `none` if every byte was covered
  // The lowest byte whose delivered value differs from what the replay left there, and that
  // value; `none` if there is none.
  uint64_t first_changed() const { return first_changed_; }
  uint8_t replayed_value() const { return replayed_value_; }

 private:
  void compare(uint64_t at, const uint8_t* expected, uint64_t n);
  void settle_bytes(uint64_t at, const uint8_t* expected, uint64_t n);

  uint64_t bytes_;
  const byte_block* delivered_;
  std::vector<uint64_t> covered_;  // one bit per byte
  uint64_t first_changed_ = none;
  uint8_t replayed_value_ = 0;
};

}  // namespace aopt::sim
