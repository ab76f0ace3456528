#include "lifted_values.hpp"

#include <charconv>
#include <cstring>

namespace aopt::sim {

std::string lifted_values_assignment(const std::vector<uint64_t>& values) {
  std::string text = std::string(lifted_values_variable) + "=";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(values[i]);
  }
  return text;
}

std::optional<std::vector<uint64_t>> parse_lifted_values(const char* text) {
  std::vector<uint64_t> values;
  const char* at = text;
  const char* end = text + std::strlen(text);
  if (at == end) return values;
  while (true) {
    uint64_t value = 0;
    const auto [next, ec] = std::from_chars(at, end, value);
    if (ec != std::errc() || next == at) return std::nullopt;
    values.push_back(value);
    if (values.size() > lifted_slot_count) return std::nullopt;
    if (next == end) return values;
    if (*next != ',') return std::nullopt;
    at = next + 1;
  }
}

}  // namespace aopt::sim
