#include "runs_digest.hpp"

// Header-only: candidates link this library without libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace aopt::sim {

struct runs_digest::state {
  XXH3_state_t xxh;
};

runs_digest::runs_digest() : state_(std::make_unique<state>()) {
  reset();
}

runs_digest::~runs_digest() = default;

void runs_digest::reset() {
  XXH3_64bits_reset(&state_->xxh);
}

void runs_digest::add(const uint8_t* first, uint64_t stride, uint32_t burst_bytes,
                      uint32_t bursts) {
  for (uint32_t k = 0; k < bursts; ++k) {
    XXH3_64bits_update(&state_->xxh, first + stride * k, burst_bytes);
  }
}

uint64_t runs_digest::value() const {
  return XXH3_64bits_digest(&state_->xxh);
}

uint64_t runs_fingerprint(const uint8_t* first, uint64_t stride, uint32_t burst_bytes,
                          uint32_t bursts) {
  runs_digest d;
  d.add(first, stride, burst_bytes, bursts);
  return d.value();
}

}  // namespace aopt::sim
