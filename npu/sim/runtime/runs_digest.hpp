// The fingerprint of GM runs (trace.hpp gm_read): `bursts` runs of `burst_bytes`, one every
// `stride` bytes, hashed as if concatenated. The candidate's recorder and the trusted checker
// both compute it with this class, so only equality matters; a read extended by a later burst
// (trace_recorder's merging) is the same stream continued.
//
//   runs_digest d;
//   d.add(p, 64, 32, 4);      // four 32-byte runs, 64 bytes apart
//   uint64_t f = d.value();   // may be called again after more add()s
#pragma once

#include <cstdint>
#include <memory>

namespace aopt::sim {

class runs_digest {
 public:
  runs_digest();
  ~runs_digest();
  runs_digest(const runs_digest&) = delete;
  runs_digest& operator=(const runs_digest&) = delete;

  // Starts a new stream.
  void reset();
  void add(const uint8_t* first, uint64_t stride, uint32_t burst_bytes, uint32_t bursts);
  uint64_t value() const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

uint64_t runs_fingerprint(const uint8_t* first, uint64_t stride, uint32_t burst_bytes,
                          uint32_t bursts);

}  // namespace aopt::sim
