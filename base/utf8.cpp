#include "base/utf8.hpp"

#include <nlohmann/json.hpp>

namespace aopt {
namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence starting at text[i], or 0 when text[i] starts a
// maximal invalid subpart; `*invalid_length` then receives that subpart's length (>= 1).
size_t sequence_length(std::string_view text, size_t i, size_t* invalid_length) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t need = 0;
  // The allowed range of the second byte (RFC 3629 table 3-7), which excludes overlongs,
  // surrogates and code points above U+10FFFF.
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    *invalid_length = 1;
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    const bool in_range = i + k < text.size() && (k == 1 ? byte(i + k) >= lo && byte(i + k) <= hi
                                                         : (byte(i + k) & 0xC0) == 0x80);
    if (!in_range) {
      *invalid_length = k;
      return 0;
    }
  }
  return need + 1;
}

}  // namespace

size_t invalid_utf8_offset(std::string_view text) {
  size_t invalid = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_length(text, i, &invalid);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

bool is_valid_utf8(std::string_view text) {
  return invalid_utf8_offset(text) == std::string_view::npos;
}

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t invalid = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_length(text, i, &invalid);
    if (n == 0) {
      out += replacement;
      i += invalid;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

void make_valid_utf8(std::string& text) {
  if (!is_valid_utf8(text)) text = to_valid_utf8(text);
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = 0;
  size_t invalid = 0;
  while (end < text.size()) {
    size_t n = sequence_length(text, end, &invalid);
    if (n == 0) n = 1;
    if (end + n > max_bytes) break;
    end += n;
  }
  return text.substr(0, end);
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace aopt
