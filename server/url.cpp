#include "server/url.hpp"

#include "base/utf8.hpp"

namespace aopt::server {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(sep, start), s.size());
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

result<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return invalid_argument("truncated percent escape");
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) return invalid_argument("malformed percent escape");
      const char decoded = static_cast<char>(hi * 16 + lo);
      if (decoded == '\0') return invalid_argument("encoded NUL byte");
      out += decoded;
      i += 2;
    } else {
      out += c;
    }
  }
  if (!is_valid_utf8(out)) return invalid_argument("the request target is not UTF-8");
  return out;
}

result<request_target> parse_target(std::string_view target) {
  request_target t;
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  if (path.empty() || path.front() != '/') return invalid_argument("target must start with '/'");
  for (std::string_view raw : split(path.substr(1), '/')) {
    if (raw.empty()) continue;
    result<std::string> seg = percent_decode(raw, false);
    if (!seg.ok()) return seg.error();
    if (seg->find('/') != std::string::npos) return invalid_argument("encoded '/' in the path");
    if (*seg == "." || *seg == "..") return invalid_argument("'.' or '..' in the path");
    t.segments.push_back(std::move(*seg));
  }
  if (q == std::string_view::npos) return t;
  for (std::string_view pair : split(target.substr(q + 1), '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    result<std::string> key = percent_decode(pair.substr(0, eq), true);
    if (!key.ok()) return key.error();
    result<std::string> value =
        percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (!value.ok()) return value.error();
    t.query[*key] = *value;
  }
  return t;
}

}  // namespace aopt::server
