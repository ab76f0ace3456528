// Text without its leading and trailing whitespace (space, tab, CR, LF, form feed, vertical tab),
// the one definition every layer trims lines, cells and answers with.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace aopt {

// A view into `text`: valid as long as `text` is.
constexpr std::string_view trim_view(std::string_view text) {
  constexpr std::string_view space = " \t\r\n\f\v";
  const size_t begin = text.find_first_not_of(space);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(space) - begin + 1);
}

inline std::string trim(std::string_view text) {
  return std::string(trim_view(text));
}

}  // namespace aopt
