#include "agent/episode/seeded_rng.hpp"

namespace aopt::agent {

seeded_rng::seeded_rng(uint64_t seed) : seed_(seed), engine_(seed) {}

uint64_t seeded_rng::next() {
  ++draws_;
  return engine_();
}

uint64_t seeded_rng::below(uint64_t n) {
  // Rejection sampling: drop the top partial bucket so every residue is equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = next();
  while (x >= limit) x = next();
  return x % n;
}

int64_t seeded_rng::between(int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(next());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span + 1));
}

double seeded_rng::unit() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

nlohmann::json seeded_rng::save() const {
  return {{"seed", seed_}, {"draws", draws_}};
}

result<seeded_rng> seeded_rng::load(const nlohmann::json& j) {
  auto non_negative = [&](const char* key) {
    if (!j.contains(key)) return false;
    const nlohmann::json& v = j[key];
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  };
  if (!j.is_object() || !non_negative("seed") || !non_negative("draws")) {
    return invalid_argument("rng state: expected {\"seed\": <uint>, \"draws\": <uint>}");
  }
  seeded_rng rng(j["seed"].get<uint64_t>());
  uint64_t draws = j["draws"].get<uint64_t>();
  rng.engine_.discard(draws);
  rng.draws_ = draws;
  return rng;
}

}  // namespace aopt::agent
