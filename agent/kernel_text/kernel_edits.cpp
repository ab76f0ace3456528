#include "agent/kernel_text/kernel_edits.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

namespace aopt::agent {

std::string apply_edits(const std::string& text, std::vector<text_edit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const text_edit& a, const text_edit& b) { return a.range.begin > b.range.begin; });
  std::string out = text;
  for (const text_edit& e : edits) {
    out.replace(e.range.begin, e.range.end - e.range.begin, e.replacement);
  }
  return out;
}

std::optional<text_range> own_lines(const std::string& masked, text_range statement) {
  size_t b = line_begin(masked, statement.begin);
  size_t e = line_end(masked, statement.end > 0 ? statement.end - 1 : 0);
  for (size_t i = b; i < statement.begin; ++i) {
    if (masked[i] != ' ' && masked[i] != '\t') return std::nullopt;
  }
  for (size_t i = statement.end; i < e; ++i) {
    if (masked[i] != ' ' && masked[i] != '\t' && masked[i] != '\r') return std::nullopt;
  }
  return text_range{b, e};
}

std::optional<text_range> call_statement(const std::string& masked, size_t call_begin,
                                         text_range parens) {
  size_t after = skip_space(masked, parens.end);
  if (after >= masked.size() || masked[after] != ';') return std::nullopt;
  // Walk back over a receiver chain: identifiers joined by '.', '->' or '::'.
  size_t start = call_begin;
  while (start > 0) {
    size_t k = start;
    while (k > 0 && (masked[k - 1] == ' ' || masked[k - 1] == '\t')) --k;
    if (k >= 1 && masked[k - 1] == '.') {
      k -= 1;
    } else if (k >= 2 && ((masked[k - 1] == '>' && masked[k - 2] == '-') ||
                          (masked[k - 1] == ':' && masked[k - 2] == ':'))) {
      k -= 2;
    } else {
      break;
    }
    while (k > 0 && (masked[k - 1] == ' ' || masked[k - 1] == '\t')) --k;
    size_t w = k;
    while (w > 0 && is_identifier_char(masked[w - 1])) --w;
    if (w == k) return std::nullopt;
    start = w;
  }
  // What precedes the statement must end another statement or open a block.
  size_t p = start;
  while (p > 0 && std::isspace(static_cast<unsigned char>(masked[p - 1]))) --p;
  if (p > 0 && masked[p - 1] != ';' && masked[p - 1] != '{' && masked[p - 1] != '}' &&
      masked[p - 1] != ':') {
    return std::nullopt;
  }
  return text_range{start, after + 1};
}

std::vector<text_range> find_blocks(const std::string& masked) {
  std::vector<text_range> blocks;
  for (size_t i = 0; i < masked.size(); ++i) {
    if (masked[i] != '{') continue;
    size_t close = find_matching(masked, i);
    if (close != std::string::npos) blocks.push_back({i, close + 1});
  }
  return blocks;
}

std::vector<int_constant> find_int_constants(const std::string& masked) {
  static const std::regex decl(
      R"((?:^|[;{}\n])\s*(?:static\s+)?(?:const|constexpr)\s+(?:static\s+)?[A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?\s+([A-Za-z_]\w*)\s*=\s*([-+]?[0-9]+)[uUlL]*\s*;)");
  std::vector<int_constant> out;
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), decl);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    int_constant c;
    c.name = m[1];
    std::string digits = m[2];
    const char* b = digits.data() + (digits[0] == '+' ? 1 : 0);
    auto [ptr, ec] = std::from_chars(b, digits.data() + digits.size(), c.value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) continue;
    c.literal = {static_cast<size_t>(m.position(2)),
                 static_cast<size_t>(m.position(2) + m.length(2))};
    out.push_back(std::move(c));
  }
  return out;
}

std::string indented(const std::vector<std::string>& lines, const std::string& indent) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    if (!lines[i].empty()) out += indent + lines[i];
  }
  return out;
}

}  // namespace aopt::agent
