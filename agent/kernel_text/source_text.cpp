#include "agent/kernel_text/source_text.hpp"

#include <cctype>

namespace aopt::agent {

namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

char closing_of(char open) {
  switch (open) {
    case '(':
      return ')';
    case '[':
      return ']';
    case '{':
      return '}';
    default:
      return 0;
  }
}

// Skips a parenthesised header at `pos` ('(' expected after spaces); returns the offset after
// ')' or npos.
size_t skip_parens(std::string_view masked, size_t pos, text_range* header = nullptr) {
  size_t open = skip_space(masked, pos);
  if (open >= masked.size() || masked[open] != '(') return std::string_view::npos;
  size_t close = find_matching(masked, open);
  if (close == std::string_view::npos) return close;
  if (header != nullptr) *header = {open, close + 1};
  return close + 1;
}

// The end (exclusive) of the statement starting at `pos`, npos when it runs past `limit`.
size_t statement_end(std::string_view masked, size_t pos, size_t limit);

size_t word_end(std::string_view masked, size_t pos) {
  while (pos < masked.size() && is_identifier_char(masked[pos])) ++pos;
  return pos;
}

bool word_at(std::string_view masked, size_t pos, std::string_view word) {
  return masked.substr(pos, word.size()) == word && word_end(masked, pos) == pos + word.size() &&
         (pos == 0 || !is_identifier_char(masked[pos - 1]));
}

// A statement or block body following a control header: either a braced block or a single
// statement.
size_t body_end(std::string_view masked, size_t pos, size_t limit) {
  size_t s = skip_space(masked, pos);
  if (s >= limit) return std::string_view::npos;
  if (masked[s] == '{') {
    size_t close = find_matching(masked, s);
    return close == std::string_view::npos || close >= limit ? std::string_view::npos : close + 1;
  }
  return statement_end(masked, s, limit);
}

size_t statement_end(std::string_view masked, size_t pos, size_t limit) {
  if (pos >= limit) return std::string_view::npos;
  if (masked[pos] == '{') {
    size_t close = find_matching(masked, pos);
    return close == std::string_view::npos || close >= limit ? std::string_view::npos : close + 1;
  }
  if (word_at(masked, pos, "for") || word_at(masked, pos, "while") ||
      word_at(masked, pos, "switch")) {
    size_t after = skip_parens(masked, word_end(masked, pos));
    if (after == std::string_view::npos) return after;
    return body_end(masked, after, limit);
  }
  if (word_at(masked, pos, "if")) {
    size_t after = skip_parens(masked, word_end(masked, pos));
    if (after == std::string_view::npos) return after;
    size_t end = body_end(masked, after, limit);
    while (end != std::string_view::npos) {
      size_t next = skip_space(masked, end);
      if (next >= limit || !word_at(masked, next, "else")) break;
      size_t after_else = skip_space(masked, word_end(masked, next));
      if (word_at(masked, after_else, "if")) {
        size_t cond_end = skip_parens(masked, word_end(masked, after_else));
        if (cond_end == std::string_view::npos) return cond_end;
        end = body_end(masked, cond_end, limit);
      } else {
        end = body_end(masked, after_else, limit);
      }
    }
    return end;
  }
  if (word_at(masked, pos, "do")) {
    size_t end = body_end(masked, word_end(masked, pos), limit);
    if (end == std::string_view::npos) return end;
    size_t w = skip_space(masked, end);
    if (!word_at(masked, w, "while")) return std::string_view::npos;
    size_t after = skip_parens(masked, word_end(masked, w));
    if (after == std::string_view::npos) return after;
    size_t semi = skip_space(masked, after);
    return semi < limit && masked[semi] == ';' ? semi + 1 : std::string_view::npos;
  }
  int depth = 0;
  for (size_t i = pos; i < limit; ++i) {
    char c = masked[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return std::string_view::npos;
      --depth;
    } else if (c == ';' && depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines, bool trailing_newline) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i];
  }
  if (trailing_newline && !lines.empty()) out += '\n';
  return out;
}

bool ends_with_newline(std::string_view text) {
  return !text.empty() && text.back() == '\n';
}

std::string normalize_space(std::string_view text) {
  std::string out;
  bool pending_space = false;
  for (char c : text) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string mask_comments_and_strings(std::string_view source) {
  std::string out(source);
  size_t i = 0;
  const size_t n = source.size();
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  while (i < n) {
    char c = source[i];
    if (c == '/' && i + 1 < n && source[i + 1] == '/') {
      size_t end = source.find('\n', i);
      if (end == std::string_view::npos) end = n;
      blank(i, end);
      i = end;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '*') {
      size_t end = source.find("*/", i + 2);
      end = end == std::string_view::npos ? n : end + 2;
      blank(i, end);
      i = end;
    } else if (c == 'R' && i + 1 < n && source[i + 1] == '"' &&
               (i == 0 || !is_identifier_char(source[i - 1]))) {
      size_t paren = source.find('(', i + 2);
      if (paren == std::string_view::npos) break;
      std::string closing = ")" + std::string(source.substr(i + 2, paren - i - 2)) + "\"";
      size_t end = source.find(closing, paren);
      end = end == std::string_view::npos ? n : end + closing.size();
      blank(i + 2, end - 1);
      i = end;
    } else if (c == '"' ||
               (c == '\'' && !(i > 0 && is_digit(source[i - 1]) && i + 1 < n &&
                               std::isxdigit(static_cast<unsigned char>(source[i + 1]))))) {
      size_t k = i + 1;
      while (k < n && source[k] != c && source[k] != '\n') {
        if (source[k] == '\\') ++k;
        ++k;
      }
      blank(i + 1, k);
      i = k < n ? k + 1 : n;
    } else {
      ++i;
    }
  }
  return out;
}

size_t find_matching(std::string_view masked, size_t open) {
  if (open >= masked.size()) return std::string_view::npos;
  char o = masked[open];
  char c = closing_of(o);
  if (c == 0) return std::string_view::npos;
  int depth = 0;
  for (size_t i = open; i < masked.size(); ++i) {
    if (masked[i] == o) {
      ++depth;
    } else if (masked[i] == c) {
      if (--depth == 0) return i;
    }
  }
  return std::string_view::npos;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

size_t find_identifier(std::string_view text, std::string_view word, size_t from) {
  if (word.empty()) return std::string_view::npos;
  size_t pos = text.find(word, from);
  while (pos != std::string_view::npos) {
    bool left = pos == 0 || !is_identifier_char(text[pos - 1]);
    bool right = pos + word.size() >= text.size() || !is_identifier_char(text[pos + word.size()]);
    if (left && right) return pos;
    pos = text.find(word, pos + 1);
  }
  return pos;
}

size_t skip_space(std::string_view text, size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

size_t line_begin(std::string_view text, size_t pos) {
  if (pos > text.size()) pos = text.size();
  size_t nl = pos == 0 ? std::string_view::npos : text.rfind('\n', pos - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

size_t line_end(std::string_view text, size_t pos) {
  size_t nl = text.find('\n', pos);
  return nl == std::string_view::npos ? text.size() : nl;
}

std::string line_indent(std::string_view text, size_t pos) {
  size_t b = line_begin(text, pos);
  size_t e = b;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(b, e - b));
}

size_t line_number(std::string_view text, size_t pos) {
  size_t line = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

std::optional<text_range> find_function_body(std::string_view masked, std::string_view name) {
  size_t pos = find_identifier(masked, name);
  while (pos != std::string_view::npos) {
    size_t after = skip_parens(masked, pos + name.size());
    if (after != std::string_view::npos) {
      size_t k = skip_space(masked, after);
      // Qualifiers between the parameter list and the body.
      for (std::string_view q : {"const", "override", "noexcept", "final"}) {
        if (word_at(masked, k, q)) k = skip_space(masked, k + q.size());
      }
      if (k < masked.size() && masked[k] == '{') {
        size_t close = find_matching(masked, k);
        if (close != std::string_view::npos) return text_range{k, close + 1};
      }
    }
    pos = find_identifier(masked, name, pos + 1);
  }
  return std::nullopt;
}

std::vector<loop_range> find_loops(std::string_view masked, text_range within) {
  std::vector<loop_range> loops;
  for (size_t i = within.begin; i < within.end && i < masked.size(); ++i) {
    if (!(word_at(masked, i, "for") || word_at(masked, i, "while"))) continue;
    loop_range loop;
    loop.keyword = i;
    size_t after = skip_parens(masked, word_end(masked, i), &loop.header);
    if (after == std::string_view::npos) continue;
    size_t open = skip_space(masked, after);
    if (open >= masked.size() || masked[open] != '{') continue;
    size_t close = find_matching(masked, open);
    if (close == std::string_view::npos) continue;
    loop.body = {open, close + 1};
    loops.push_back(loop);
  }
  return loops;
}

bool inside_loop(std::string_view masked, size_t pos) {
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    if (pos > loop.body.begin && pos < loop.body.end) return true;
  }
  return false;
}

std::vector<text_range> split_statements(std::string_view masked, text_range block) {
  std::vector<text_range> statements;
  if (block.end <= block.begin + 1 || block.end > masked.size()) return statements;
  size_t limit = block.end - 1;
  size_t pos = skip_space(masked, block.begin + 1);
  while (pos < limit) {
    size_t end = statement_end(masked, pos, limit);
    if (end == std::string_view::npos) break;
    statements.push_back({pos, end});
    pos = skip_space(masked, end);
  }
  return statements;
}

namespace {

// Trimmed ranges of the top-level comma-separated parts of masked[begin, end).
std::vector<text_range> argument_ranges(std::string_view masked, size_t begin, size_t end) {
  std::vector<text_range> out;
  int depth = 0;
  int angle = 0;  // template argument lists: '<' glued to an identifier, as in static_cast<T>
  size_t start = begin;
  auto push = [&](size_t b, size_t e) {
    while (b < e && std::isspace(static_cast<unsigned char>(masked[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(masked[e - 1]))) --e;
    out.push_back({b, e});
  };
  for (size_t i = begin; i < end; ++i) {
    char c = masked[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (c == '<' && i > begin && is_identifier_char(masked[i - 1])) {
      ++angle;
    } else if (c == '>' && angle > 0 && !(i > begin && masked[i - 1] == '-')) {
      --angle;
    } else if (c == ',' && depth == 0 && angle == 0) {
      push(start, i);
      start = i + 1;
    }
  }
  push(start, end);
  if (out.size() == 1 && out[0].begin == out[0].end) out.clear();
  return out;
}

}  // namespace

std::vector<std::string> split_arguments(std::string_view args) {
  std::string masked = mask_comments_and_strings(args);
  std::vector<std::string> out;
  for (const text_range& r : argument_ranges(masked, 0, masked.size())) {
    out.emplace_back(args.substr(r.begin, r.end - r.begin));
  }
  return out;
}

std::vector<call_site> find_calls(std::string_view original, std::string_view masked,
                                  std::string_view name, text_range within) {
  std::vector<call_site> calls;
  size_t pos = find_identifier(masked, name, within.begin);
  while (pos != std::string_view::npos && pos < within.end) {
    size_t k = skip_space(masked, pos + name.size());
    if (k < masked.size() && masked[k] == '<') {
      int depth = 0;
      size_t j = k;
      for (; j < masked.size(); ++j) {
        if (masked[j] == '<') ++depth;
        if (masked[j] == '>' && --depth == 0) break;
        if (masked[j] == ';' || masked[j] == '{') break;
      }
      k = (j < masked.size() && masked[j] == '>') ? skip_space(masked, j + 1) : masked.size();
    }
    if (k < masked.size() && masked[k] == '(') {
      size_t close = find_matching(masked, k);
      size_t after = close == std::string_view::npos ? close : skip_space(masked, close + 1);
      bool definition =
          after != std::string_view::npos && after < masked.size() && masked[after] == '{';
      if (close != std::string_view::npos && close < within.end && !definition) {
        call_site call;
        call.name_begin = pos;
        call.parens = {k, close + 1};
        call.argument_ranges = argument_ranges(masked, k + 1, close);
        for (const text_range& r : call.argument_ranges) {
          call.arguments.emplace_back(original.substr(r.begin, r.end - r.begin));
        }
        calls.push_back(std::move(call));
      }
    }
    pos = find_identifier(masked, name, pos + 1);
  }
  return calls;
}

std::vector<std::string> identifier_words(std::string_view identifier) {
  std::vector<std::string> words;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) words.push_back(current);
    current.clear();
  };
  for (size_t i = 0; i < identifier.size(); ++i) {
    char c = identifier[i];
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      flush();
      continue;
    }
    bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    if (upper && !current.empty()) {
      char prev = identifier[i - 1];
      bool prev_lower = std::islower(static_cast<unsigned char>(prev)) != 0 || is_digit(prev);
      bool next_lower = i + 1 < identifier.size() &&
                        std::islower(static_cast<unsigned char>(identifier[i + 1])) != 0;
      bool prev_upper = std::isupper(static_cast<unsigned char>(prev)) != 0;
      // "tileLength" splits before 'L'; "UBSize" splits before 'S' (an acronym ends).
      if (prev_lower || (prev_upper && next_lower)) flush();
    }
    current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  flush();
  return words;
}

std::string fresh_identifier(std::string_view text, const std::string& stem) {
  if (find_identifier(text, stem) == std::string_view::npos) return stem;
  for (int i = 2;; ++i) {
    std::string candidate = stem + std::to_string(i);
    if (find_identifier(text, candidate) == std::string_view::npos) return candidate;
  }
}

namespace {

// Calls `visit(begin, end)` for each identifier of `code` that free_identifiers() lists.
template <typename Visit>
void each_free_identifier(std::string_view code, Visit visit) {
  const std::string masked = mask_comments_and_strings(code);
  size_t i = 0;
  while (i < masked.size()) {
    if (!is_identifier_char(masked[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < masked.size() && is_identifier_char(masked[end])) ++end;
    // A number (`1e5f`, `0x1F`) is one run of identifier characters that starts with a digit.
    const bool number = std::isdigit(static_cast<unsigned char>(masked[i])) != 0;
    size_t before = i;
    while (before > 0 && is_space(masked[before - 1])) --before;
    const bool member =
        before > 0 && (masked[before - 1] == '.' ||
                       (before > 1 && masked[before - 1] == '>' && masked[before - 2] == '-') ||
                       (before > 1 && masked[before - 1] == ':' && masked[before - 2] == ':'));
    if (!number && !member) visit(i, end);
    i = end;
  }
}

}  // namespace

std::set<std::string> free_identifiers(std::string_view code) {
  std::set<std::string> out;
  each_free_identifier(code, [&](size_t b, size_t e) { out.emplace(code.substr(b, e - b)); });
  return out;
}

std::string replace_free_identifiers(std::string_view code,
                                     const std::map<std::string, std::string>& replacements) {
  std::string out;
  size_t copied = 0;
  each_free_identifier(code, [&](size_t b, size_t e) {
    auto it = replacements.find(std::string(code.substr(b, e - b)));
    if (it == replacements.end()) return;
    out.append(code.substr(copied, b - copied));
    out += it->second;
    copied = e;
  });
  out.append(code.substr(copied));
  return out;
}

}  // namespace aopt::agent
