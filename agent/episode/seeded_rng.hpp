// A seeded random source whose whole state is two integers (seed, draws), so the heuristic
// policies can persist it with the episode and continue the same sequence after a restart.
//
// The engine is std::mt19937_64, whose output sequence the C++ standard fixes; bounded and unit
// draws are computed here from raw outputs (not with std:: distributions, whose algorithms
// differ between standard libraries), so a sequence is the same on every platform.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <random>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::agent {

class seeded_rng {
 public:
  explicit seeded_rng(uint64_t seed = 1);

  uint64_t next();
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t below(uint64_t n);
  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  int64_t between(int64_t lo, int64_t hi);
  // Uniform in [0, 1).
  double unit();
  bool chance(double p) { return unit() < p; }

  uint64_t seed() const { return seed_; }
  uint64_t draws() const { return draws_; }

  // {"seed": s, "draws": n}
  nlohmann::json save() const;
  // Replays `draws` outputs from `seed`; invalid_argument when the fields are missing.
  static result<seeded_rng> load(const nlohmann::json& j);

 private:
  uint64_t seed_;
  uint64_t draws_ = 0;
  std::mt19937_64 engine_;
};

}  // namespace aopt::agent
