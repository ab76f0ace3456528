#include "llm/backoff.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <string>

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

namespace {

// RFC 9110's IMF-fixdate, the HTTP-date form servers send.
std::optional<std::chrono::system_clock::time_point> parse_http_date(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  double seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec == std::errc() && end == value.data() + value.size()) {
    if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
    return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
  }
  const std::optional<std::chrono::system_clock::time_point> date =
      parse_http_date(std::string(value));
  if (!date) return std::nullopt;
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(*date - now));
}

}  // namespace aopt::llm
