#include "llm/answer_parser.hpp"
#include "base/text_trim.hpp"

#include <algorithm>
#include <cctype>

namespace aopt::llm {

namespace {

struct line_span {
  size_t begin = 0;       // offset of the first character
  size_t end = 0;         // offset just past the line's '\n' (or the end of the text)
  std::string_view text;  // without the '\n'
};

std::vector<line_span> split_lines(std::string_view text) {
  std::vector<line_span> lines;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const size_t stop = nl == std::string_view::npos ? text.size() : nl;
    lines.push_back(
        {at, nl == std::string_view::npos ? text.size() : nl + 1, text.substr(at, stop - at)});
    at = lines.back().end;
  }
  return lines;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Runs of blanks collapsed to one space, ends trimmed.
std::string normalise(std::string_view line) {
  std::string out;
  bool gap = false;
  for (char c : trim_view(line)) {
    if (is_blank(c)) {
      gap = true;
      continue;
    }
    if (gap) out.push_back(' ');
    gap = false;
    out.push_back(c);
  }
  return out;
}

std::string shorten(std::string_view text, size_t limit = 80) {
  std::string out(trim_view(text.substr(0, text.find('\n'))));
  if (out.size() > limit) out = out.substr(0, limit) + "...";
  return out;
}

// A marker line: at least five `c` characters, then optional blanks and `word` (may be empty).
bool is_marker(std::string_view line, char c, std::string_view word) {
  line = trim_view(line);
  size_t n = 0;
  while (n < line.size() && line[n] == c) ++n;
  if (n < 5) return false;
  return trim_view(line.substr(n)) == word;
}

struct fenced_block {
  std::string lang;
  std::string text;
};

std::vector<fenced_block> fenced_blocks(std::string_view answer) {
  std::vector<fenced_block> blocks;
  std::optional<fenced_block> open;
  size_t fence_len = 0;
  for (const line_span& line : split_lines(answer)) {
    std::string_view t = trim_view(line.text);
    size_t ticks = 0;
    while (ticks < t.size() && t[ticks] == '`') ++ticks;
    if (!open) {
      if (ticks >= 3) {
        open.emplace();
        fence_len = ticks;
        std::string lang(trim_view(t.substr(ticks)));
        std::transform(lang.begin(), lang.end(), lang.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        open->lang = lang.substr(0, lang.find(' '));
      }
      continue;
    }
    if (ticks >= fence_len && ticks == t.size()) {
      blocks.push_back(std::move(*open));
      open.reset();
      continue;
    }
    open->text.append(line.text);
    open->text.push_back('\n');
  }
  return blocks;
}

bool is_cpp_lang(const std::string& lang) {
  static const char* const names[] = {"cpp", "c++", "cc", "cxx", "c", "h", "hpp", "ascendc"};
  return std::find(std::begin(names), std::end(names), lang) != std::end(names);
}

// Where `search` occurs in `source` line by line after normalisation: the byte ranges.
std::vector<std::pair<size_t, size_t>> normalised_matches(std::string_view source,
                                                          std::string_view search) {
  std::vector<std::string> wanted;
  for (const line_span& l : split_lines(search)) wanted.push_back(normalise(l.text));
  while (!wanted.empty() && wanted.front().empty()) wanted.erase(wanted.begin());
  while (!wanted.empty() && wanted.back().empty()) wanted.pop_back();
  std::vector<std::pair<size_t, size_t>> matches;
  if (wanted.empty()) return matches;
  const std::vector<line_span> lines = split_lines(source);
  std::vector<std::string> have;
  have.reserve(lines.size());
  for (const line_span& l : lines) have.push_back(normalise(l.text));
  for (size_t i = 0; i + wanted.size() <= have.size(); ++i) {
    if (!std::equal(wanted.begin(), wanted.end(), have.begin() + static_cast<std::ptrdiff_t>(i)))
      continue;
    matches.emplace_back(lines[i].begin, lines[i + wanted.size() - 1].end);
  }
  return matches;
}

// Occurrences of the whole lines `what` starting at a line start: a SEARCH text "  x();" must not
// match inside "    x();", where the replacement's own indentation would be added to the rest.
size_t count_line_occurrences(std::string_view text, std::string_view what, size_t* first) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
    if (at != 0 && text[at - 1] != '\n') continue;
    if (count == 0) *first = at;
    ++count;
  }
  return count;
}

// The source cut at EVOLVE-BLOCK markers: outside[0], inside[0], outside[1], ..., outside[n].
struct evolve_split {
  std::vector<std::vector<std::string_view>> outside;
  std::vector<std::string> inside;
  std::vector<size_t> outside_first_line;  // 1-based line number where each outside part starts
};

// nullopt with `why` set when the markers are missing or unbalanced.
std::optional<evolve_split> split_evolve(std::string_view text, std::string* why) {
  evolve_split split;
  split.outside.emplace_back();
  split.outside_first_line.push_back(1);
  bool inside = false;
  size_t line_no = 0;
  for (const line_span& line : split_lines(text)) {
    ++line_no;
    const std::string_view t = trim_view(line.text);
    const bool start = t.rfind("// EVOLVE-BLOCK-START", 0) == 0;
    const bool end = t.rfind("// EVOLVE-BLOCK-END", 0) == 0;
    if (start) {
      if (inside) {
        *why = "line " + std::to_string(line_no) + ": EVOLVE-BLOCK-START inside an open block";
        return std::nullopt;
      }
      split.outside.back().push_back(trim_right(line.text));
      split.inside.emplace_back();
      inside = true;
    } else if (end) {
      if (!inside) {
        *why = "line " + std::to_string(line_no) + ": EVOLVE-BLOCK-END without a start";
        return std::nullopt;
      }
      split.outside.emplace_back();
      split.outside_first_line.push_back(line_no);
      split.outside.back().push_back(trim_right(line.text));
      inside = false;
    } else if (inside) {
      split.inside.back().append(line.text);
      split.inside.back().push_back('\n');
    } else {
      split.outside.back().push_back(trim_right(line.text));
    }
  }
  if (inside) {
    *why = "an EVOLVE-BLOCK-START has no EVOLVE-BLOCK-END";
    return std::nullopt;
  }
  if (split.inside.empty()) {
    *why = "no // EVOLVE-BLOCK-START ... // EVOLVE-BLOCK-END lines";
    return std::nullopt;
  }
  return split;
}

void drop_blank_edges(std::vector<std::string_view>& lines, size_t* first_line) {
  while (!lines.empty() && lines.front().empty()) {
    lines.erase(lines.begin());
    ++*first_line;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
}

}  // namespace

const char* to_string(answer_error kind) {
  switch (kind) {
    case answer_error::none:
      return "none";
    case answer_error::no_code:
      return "no_code";
    case answer_error::malformed_edit_block:
      return "malformed_edit_block";
    case answer_error::search_not_found:
      return "search_not_found";
    case answer_error::search_ambiguous:
      return "search_ambiguous";
    case answer_error::evolve_block_missing:
      return "evolve_block_missing";
    case answer_error::outside_evolve_block:
      return "outside_evolve_block";
    case answer_error::malformed_json:
      return "malformed_json";
  }
  return "unknown";
}

answer_result<std::string> extract_fenced_code(std::string_view answer) {
  const std::vector<fenced_block> blocks = fenced_blocks(answer);
  const fenced_block* best = nullptr;
  for (const fenced_block& b : blocks)
    if (is_cpp_lang(b.lang) && (!best || b.text.size() > best->text.size())) best = &b;
  if (!best)
    for (const fenced_block& b : blocks)
      if (b.lang.empty() && (!best || b.text.size() > best->text.size())) best = &b;
  if (!best || trim_view(best->text).empty())
    return answer_failure(answer_error::no_code,
                          "the answer has no fenced ```cpp block and no SEARCH/REPLACE blocks");
  return best->text;
}

answer_result<std::vector<edit_block>> parse_edit_blocks(std::string_view answer) {
  enum class state { outside, search, replace };
  std::vector<edit_block> blocks;
  state s = state::outside;
  size_t line_no = 0;
  for (const line_span& line : split_lines(answer)) {
    ++line_no;
    const bool open = is_marker(line.text, '<', "SEARCH");
    const bool divider = is_marker(line.text, '=', "");
    const bool close = is_marker(line.text, '>', "REPLACE");
    const std::string where = "line " + std::to_string(line_no) + " of the answer";
    switch (s) {
      case state::outside:
        if (open) {
          blocks.emplace_back();
          s = state::search;
        } else if (close) {
          return answer_failure(answer_error::malformed_edit_block,
                                where + ": REPLACE marker without SEARCH");
        }
        break;
      case state::search:
        if (divider) {
          if (trim_view(blocks.back().search).empty())
            return answer_failure(answer_error::malformed_edit_block,
                                  where + ": empty SEARCH section");
          s = state::replace;
        } else if (open || close) {
          return answer_failure(answer_error::malformed_edit_block,
                                where + ": expected ======= first");
        } else {
          blocks.back().search.append(line.text);
          blocks.back().search.push_back('\n');
        }
        break;
      case state::replace:
        if (close) {
          s = state::outside;
        } else if (open || divider) {
          return answer_failure(answer_error::malformed_edit_block,
                                where + ": expected >>>>>>> REPLACE first");
        } else {
          blocks.back().replace.append(line.text);
          blocks.back().replace.push_back('\n');
        }
        break;
    }
  }
  if (s != state::outside)
    return answer_failure(answer_error::malformed_edit_block,
                          "the last SEARCH/REPLACE block is not closed");
  return blocks;
}

answer_result<code_answer> apply_edit_blocks(std::string_view source,
                                             const std::vector<edit_block>& blocks) {
  code_answer out;
  out.source = std::string(source);
  out.from_edits = true;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const edit_block& b = blocks[i];
    const std::string which =
        "edit block " + std::to_string(i + 1) + " (SEARCH starting '" + shorten(b.search) + "')";
    size_t at = 0;
    const size_t exact = count_line_occurrences(out.source, b.search, &at);
    if (exact == 1) {
      out.source.replace(at, b.search.size(), b.replace);
      ++out.edits;
      continue;
    }
    if (exact > 1)
      return answer_failure(answer_error::search_ambiguous,
                            which + " matches " + std::to_string(exact) + " places in the source");
    const auto matches = normalised_matches(out.source, b.search);
    if (matches.empty())
      return answer_failure(answer_error::search_not_found,
                            which + " does not match the source, even with whitespace normalised");
    if (matches.size() > 1)
      return answer_failure(answer_error::search_ambiguous,
                            which + " matches " + std::to_string(matches.size()) +
                                " places in the source (whitespace normalised)");
    auto [begin, end] = matches.front();
    std::string replacement = b.replace;
    // The matched stretch may be the file's last line without a newline.
    if (end == out.source.size() && (end == 0 || out.source[end - 1] != '\n') &&
        !replacement.empty() && replacement.back() == '\n')
      replacement.pop_back();
    out.source.replace(begin, end - begin, replacement);
    ++out.edits;
    ++out.whitespace_matches;
  }
  return out;
}

answer_result<code_answer> extract_source(std::string_view answer, std::string_view current) {
  answer_result<std::vector<edit_block>> blocks = parse_edit_blocks(answer);
  if (!blocks.ok()) return blocks.error();
  if (!blocks->empty()) return apply_edit_blocks(current, *blocks);
  answer_result<std::string> code = extract_fenced_code(answer);
  if (!code.ok()) return code.error();
  code_answer out;
  out.source = std::move(*code);
  return out;
}

answer_result<size_t> check_evolve_block_only(std::string_view before, std::string_view after) {
  std::string why;
  std::optional<evolve_split> old_split = split_evolve(before, &why);
  if (!old_split)
    return answer_failure(answer_error::evolve_block_missing, "the current source: " + why);
  std::optional<evolve_split> new_split = split_evolve(after, &why);
  if (!new_split)
    return answer_failure(answer_error::outside_evolve_block,
                          "the answer broke the EVOLVE-BLOCK markers: " + why);
  if (new_split->inside.size() != old_split->inside.size())
    return answer_failure(answer_error::outside_evolve_block,
                          "the answer has " + std::to_string(new_split->inside.size()) +
                              " EVOLVE-BLOCKs where the source has " +
                              std::to_string(old_split->inside.size()));
  for (size_t part = 0; part < old_split->outside.size(); ++part) {
    std::vector<std::string_view> a = old_split->outside[part];
    std::vector<std::string_view> b = new_split->outside[part];
    size_t a_line = old_split->outside_first_line[part];
    size_t b_line = new_split->outside_first_line[part];
    drop_blank_edges(a, &a_line);
    drop_blank_edges(b, &b_line);
    const size_t n = std::min(a.size(), b.size());
    size_t k = 0;
    while (k < n && a[k] == b[k]) ++k;
    if (k == n && a.size() == b.size()) continue;
    const std::string was = k < a.size() ? "'" + shorten(a[k]) + "'" : "nothing";
    const std::string now = k < b.size() ? "'" + shorten(b[k]) + "'" : "nothing";
    return answer_failure(answer_error::outside_evolve_block,
                          "line " + std::to_string(b_line + k) +
                              " outside the EVOLVE-BLOCK changed: " + was + " became " + now);
  }
  size_t changed = 0;
  for (size_t i = 0; i < old_split->inside.size(); ++i)
    if (old_split->inside[i] != new_split->inside[i]) ++changed;
  return changed;
}

answer_result<nlohmann::json> parse_json_answer(std::string_view answer) {
  auto object = [](std::string_view text) -> std::optional<nlohmann::json> {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
  };
  if (auto j = object(trim_view(answer))) return std::move(*j);
  const std::vector<fenced_block> blocks = fenced_blocks(answer);
  for (const fenced_block& b : blocks)
    if (b.lang == "json")
      if (auto j = object(b.text)) return std::move(*j);
  for (const fenced_block& b : blocks)
    if (b.lang != "json")
      if (auto j = object(b.text)) return std::move(*j);
  const size_t open = answer.find('{');
  const size_t close = answer.rfind('}');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open)
    if (auto j = object(answer.substr(open, close - open + 1))) return std::move(*j);
  return answer_failure(
      answer_error::malformed_json,
      "the answer holds no JSON object (bare or in a ```json block): '" + shorten(answer) + "'");
}

}  // namespace aopt::llm
