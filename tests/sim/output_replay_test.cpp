// The backward replay of an output's traced writes (output_replay.hpp) says what the forward
// replay it replaced said: a forward model (an image and a written-map per byte, writes applied
// in order, bursts of one write in order) is run beside it over random writes that overlap one
// another and themselves, with and without the output's initial bytes, on delivered outputs that
// equal the replay and on ones changed at a random byte.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "npu/sim/runtime/output_replay.hpp"

using aopt::sim::byte_block;
using aopt::sim::output_replay;

namespace {

struct write {
  uint64_t offset = 0, stride = 0;
  uint32_t burst = 0, bursts = 0;
  std::vector<uint8_t> data;
};

struct forward_model {
  std::vector<uint8_t> image, written;
  uint64_t uncovered = 0, first_uncovered = output_replay::none;
  uint64_t first_changed = output_replay::none;
  uint8_t replayed = 0;
};

forward_model replay_forward(uint64_t bytes, const std::vector<write>& writes,
                             const std::vector<uint8_t>* initial, const byte_block& delivered) {
  forward_model m;
  m.image = initial != nullptr ? *initial : std::vector<uint8_t>(bytes, 0);
  m.written.assign(bytes, initial != nullptr ? 1 : 0);
  for (const write& w : writes) {
    for (uint32_t k = 0; k < w.bursts; ++k) {
      for (uint32_t b = 0; b < w.burst; ++b) {
        m.image[w.offset + w.stride * k + b] = w.data[uint64_t{k} * w.burst + b];
        m.written[w.offset + w.stride * k + b] = 1;
      }
    }
  }
  for (uint64_t b = 0; b < bytes; ++b) {
    if (m.written[b] == 0) {
      if (m.uncovered++ == 0) m.first_uncovered = b;
    } else if (b < delivered.size() && m.first_changed == output_replay::none &&
               m.image[b] != delivered[b]) {
      m.first_changed = b;
      m.replayed = m.image[b];
    }
  }
  return m;
}

output_replay replay_backward(uint64_t bytes, const std::vector<write>& writes,
                              const std::vector<uint8_t>* initial, const byte_block& delivered) {
  output_replay r(bytes, &delivered);
  for (auto w = writes.rbegin(); w != writes.rend(); ++w) {
    for (uint32_t k = w->bursts; k-- > 0;) {
      r.settle_write(w->offset + w->stride * k, w->data.data() + uint64_t{k} * w->burst, w->burst);
    }
  }
  if (initial != nullptr) r.settle_initial(*initial);
  return r;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("the backward output replay agrees with the forward one on random writes") {
    std::mt19937_64 rng(20261130);
    auto below = [&](uint64_t n) { return n == 0 ? 0 : rng() % n; };
    int changed_found = 0, uncovered_found = 0, clean = 0;
    for (int round = 0; round < 400; ++round) {
      CAPTURE(round);
      const uint64_t bytes = 1 + below(round % 4 == 0 ? 5000 : 300);
      std::vector<write> writes(below(12));
      for (write& w : writes) {
        w.burst = static_cast<uint32_t>(1 + below(std::min<uint64_t>(bytes, 200)));
        w.bursts = static_cast<uint32_t>(1 + below(4));
        w.stride = below(2 * w.burst + 1);  // below, at or past the burst: overlapping or not
        const uint64_t span = w.stride * (w.bursts - 1) + w.burst;
        if (span > bytes) {
          w.bursts = 1;
          w.stride = 0;
        }
        w.offset = below(bytes - w.burst + 1);
        if (w.offset + w.stride * (w.bursts - 1) + w.burst > bytes) w.offset = 0;
        w.data.resize(uint64_t{w.burst} * w.bursts);
        for (uint8_t& b : w.data) b = static_cast<uint8_t>(below(4));  // repeats are common
      }
      std::vector<uint8_t> initial(bytes);
      for (uint8_t& b : initial) b = static_cast<uint8_t>(below(4));
      const bool with_initial = round % 3 == 0;
      const std::vector<uint8_t>* start = with_initial ? &initial : nullptr;

      // Delivered: exactly the forward replay, then that with one byte changed, then a short one.
      const forward_model exact =
          replay_forward(bytes, writes, start, byte_block(std::vector<uint8_t>(bytes, 0)));
      std::vector<byte_block> deliveries = {byte_block(exact.image)};
      std::vector<uint8_t> changed = exact.image;
      changed[below(bytes)] ^= 0x80;
      deliveries.emplace_back(changed);
      deliveries.emplace_back(
          std::vector<uint8_t>(changed.begin(), changed.begin() + below(bytes)));
      for (const byte_block& delivered : deliveries) {
        const forward_model f = replay_forward(bytes, writes, start, delivered);
        const output_replay b = replay_backward(bytes, writes, start, delivered);
        REQUIRE(b.uncovered_bytes() == f.uncovered);
        REQUIRE(b.first_uncovered() == f.first_uncovered);
        REQUIRE(b.first_changed() == f.first_changed);
        if (f.first_changed != output_replay::none) {
          REQUIRE(b.replayed_value() == f.replayed);
          ++changed_found;
        }
        if (f.uncovered != 0) ++uncovered_found;
        if (f.uncovered == 0 && f.first_changed == output_replay::none) ++clean;
      }
    }
    // The rounds cover every outcome.
    CHECK(changed_found > 100);
    CHECK(uncovered_found > 100);
    CHECK(clean > 100);
  }

  TEST_CASE("a later write of a byte decides it, and the lowest changed byte is named") {
    const std::vector<uint8_t> first = {1, 1, 1, 1}, second = {2, 2};
    const byte_block delivered(std::vector<uint8_t>{1, 2, 2, 9});
    output_replay r(4, &delivered);
    r.settle_write(1, second.data(), 2);  // the later write, replayed first
    r.settle_write(0, first.data(), 4);
    CHECK(r.uncovered_bytes() == 0);
    CHECK(r.first_changed() == 3);
    CHECK(r.replayed_value() == 1);

    output_replay gap(6, &delivered);
    gap.settle_write(1, second.data(), 2);
    CHECK(gap.uncovered_bytes() == 4);
    CHECK(gap.first_uncovered() == 0);
  }
}
