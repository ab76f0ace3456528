#include "llm/backoff.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace aopt::llm {

backoff::backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max, uint64_t seed)
    : initial_(std::max(initial, std::chrono::milliseconds(1))),
      max_(std::max(max, initial_)),
      rng_(seed) {}

std::chrono::milliseconds backoff::delay(uint32_t retry) {
  const uint32_t doublings = std::min<uint32_t>(retry > 0 ? retry - 1 : 0, 40);
  const double full = std::min(static_cast<double>(max_.count()),
                               static_cast<double>(initial_.count()) * std::ldexp(1.0, doublings));
  std::uniform_real_distribution<double> jitter(full / 2, full);
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(jitter(rng_))));
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  double seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(seconds) ||
      seconds < 0)
    return std::nullopt;
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
}

}  // namespace aopt::llm
