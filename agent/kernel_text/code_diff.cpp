#include "agent/kernel_text/code_diff.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include <dtl/dtl.hpp>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

struct edit {
  char kind;  // ' ', '-', '+'
  const std::string* line;
  size_t old_index;  // 0-based line in before (next line for an insertion)
  size_t new_index;  // 0-based line in after (next line for a deletion)
};

std::string squeeze(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

std::string leading_ws(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(0, i);
}

struct hunk_line {
  char kind;
  std::string text;
};

struct hunk {
  size_t old_start = 0;
  std::vector<hunk_line> lines;
};

result<std::vector<hunk>> parse_diff(const std::string& diff) {
  static const std::regex header(R"(^@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))? @@.*$)");
  std::vector<std::string> lines = split_lines(diff);
  std::vector<hunk> hunks;
  size_t i = 0;
  while (i < lines.size()) {
    std::string line = lines[i];
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("@@", 0) != 0) {
      ++i;
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, header)) {
      return invalid_argument("diff line " + std::to_string(i + 1) + ": malformed hunk header '" +
                              line + "'");
    }
    hunk h;
    h.old_start = std::stoul(m[1]);
    long old_left = m[2].matched ? std::stol(m[2]) : 1;
    long new_left = m[4].matched ? std::stol(m[4]) : 1;
    ++i;
    while (i < lines.size() && (old_left > 0 || new_left > 0)) {
      std::string l = lines[i];
      if (!l.empty() && l.back() == '\r') l.pop_back();
      if (l.rfind("@@", 0) == 0) break;
      if (l.empty()) {
        // An empty context line whose leading space an editor stripped.
        h.lines.push_back({' ', ""});
        --old_left;
        --new_left;
      } else if (l[0] == ' ' || l[0] == '-' || l[0] == '+') {
        h.lines.push_back({l[0], l.substr(1)});
        if (l[0] != '+') --old_left;
        if (l[0] != '-') --new_left;
      } else if (l[0] != '\\') {
        break;
      }
      ++i;
    }
    // "\ No newline at end of file" right after the last line.
    while (i < lines.size() && !lines[i].empty() && lines[i][0] == '\\') ++i;
    hunks.push_back(std::move(h));
  }
  if (hunks.empty()) return invalid_argument("diff holds no hunk");
  return hunks;
}

struct placement {
  size_t target_begin = 0;  // 0-based target line of the first matched line
  size_t first = 0;         // hunk lines [first, last) are used
  size_t last = 0;
};

// Places hunk `h` with `fuzz` context lines dropped at each end, at or after `min_line`.
std::optional<placement> place(const hunk& h, const std::vector<std::string>& target_sq,
                               size_t min_line, long expected, size_t fuzz) {
  size_t first = 0;
  size_t last = h.lines.size();
  for (size_t k = 0; k < fuzz && first < last && h.lines[first].kind == ' '; ++k) ++first;
  for (size_t k = 0; k < fuzz && last > first && h.lines[last - 1].kind == ' '; ++k) --last;
  std::vector<std::string> old_side;
  bool anchored = false;
  for (size_t k = first; k < last; ++k) {
    if (h.lines[k].kind == '+') continue;
    old_side.push_back(squeeze(h.lines[k].text));
    if (!old_side.back().empty()) anchored = true;
  }
  if (!anchored || old_side.size() > target_sq.size()) return std::nullopt;
  std::optional<size_t> best;
  long best_distance = 0;
  for (size_t p = min_line; p + old_side.size() <= target_sq.size(); ++p) {
    bool equal = true;
    for (size_t k = 0; k < old_side.size() && equal; ++k) equal = target_sq[p + k] == old_side[k];
    if (!equal) continue;
    long distance = std::labs(static_cast<long>(p) - expected);
    if (!best || distance < best_distance) {
      best = p;
      best_distance = distance;
    }
  }
  if (!best) return std::nullopt;
  return placement{*best, first, last};
}

}  // namespace

std::string make_unified_diff(const std::string& before, const std::string& after,
                              const diff_options& options) {
  if (before == after) return {};
  std::vector<std::string> a = split_lines(before);
  std::vector<std::string> b = split_lines(after);
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  d.compose();

  std::vector<edit> edits;
  size_t old_pos = 0;
  size_t new_pos = 0;
  for (const auto& [line, info] : d.getSes().getSequence()) {
    if (info.type == dtl::SES_COMMON) {
      edits.push_back({' ', &a[static_cast<size_t>(info.beforeIdx - 1)], old_pos++, new_pos++});
    } else if (info.type == dtl::SES_DELETE) {
      edits.push_back({'-', &a[static_cast<size_t>(info.beforeIdx - 1)], old_pos++, new_pos});
    } else {
      edits.push_back({'+', &b[static_cast<size_t>(info.afterIdx - 1)], old_pos, new_pos++});
    }
  }

  std::string out = "--- " + options.old_label + "\n+++ " + options.new_label + "\n";
  size_t i = 0;
  while (i < edits.size()) {
    if (edits[i].kind == ' ') {
      ++i;
      continue;
    }
    // A hunk: changes separated by at most 2 * context unchanged lines, plus context.
    size_t start = i >= options.context ? i - options.context : 0;
    size_t end = i;
    size_t j = i;
    while (j < edits.size()) {
      if (edits[j].kind != ' ') {
        end = j + 1;
        ++j;
        continue;
      }
      size_t run = j;
      while (run < edits.size() && edits[run].kind == ' ') ++run;
      if (run < edits.size() && run - j <= 2 * options.context) {
        j = run;
        continue;
      }
      break;
    }
    size_t stop = std::min(edits.size(), end + options.context);
    size_t old_count = 0;
    size_t new_count = 0;
    for (size_t k = start; k < stop; ++k) {
      if (edits[k].kind != '+') ++old_count;
      if (edits[k].kind != '-') ++new_count;
    }
    // Unified format: a side without lines names the line before the hunk.
    size_t old_start = old_count == 0 ? edits[start].old_index : edits[start].old_index + 1;
    size_t new_start = new_count == 0 ? edits[start].new_index : edits[start].new_index + 1;
    out += "@@ -" + std::to_string(old_start) + "," + std::to_string(old_count) + " +" +
           std::to_string(new_start) + "," + std::to_string(new_count) + " @@\n";
    for (size_t k = start; k < stop; ++k) {
      out += edits[k].kind;
      out += *edits[k].line;
      out += '\n';
    }
    i = stop;
  }
  return out;
}

result<patch_outcome> apply_unified_diff(const std::string& target, const std::string& diff,
                                         const patch_options& options) {
  result<std::vector<hunk>> hunks = parse_diff(diff);
  if (!hunks.ok()) return hunks.error();

  std::vector<std::string> lines = split_lines(target);
  std::vector<std::string> squeezed;
  squeezed.reserve(lines.size());
  for (const std::string& l : lines) squeezed.push_back(squeeze(l));

  patch_outcome outcome;
  outcome.applied = true;
  std::vector<std::optional<placement>> placements;
  size_t min_line = 0;
  long shift = 0;
  for (size_t h = 0; h < hunks->size(); ++h) {
    const hunk& hk = (*hunks)[h];
    hunk_report report;
    report.index = h + 1;
    report.header_line = hk.old_start;
    std::optional<placement> found;
    for (size_t fuzz = 0; fuzz <= options.max_fuzz && !found; ++fuzz) {
      size_t skipped = 0;
      for (size_t k = 0; k < fuzz && k < hk.lines.size() && hk.lines[k].kind == ' '; ++k) ++skipped;
      long expected = static_cast<long>(hk.old_start) - 1 + static_cast<long>(skipped) + shift;
      found = place(hk, squeezed, min_line, expected, fuzz);
      if (found) {
        report.fuzz = fuzz;
        report.offset = static_cast<long>(found->target_begin) - expected;
      }
    }
    if (found) {
      report.applied = true;
      report.matched_line = found->target_begin + 1;
      shift += report.offset;
      size_t old_lines = 0;
      for (size_t k = found->first; k < found->last; ++k) {
        if (hk.lines[k].kind != '+') ++old_lines;
      }
      min_line = found->target_begin + old_lines;
    } else {
      report.message = hk.lines.empty() ? "empty hunk"
                                        : "context not found in the target (after fuzz " +
                                              std::to_string(options.max_fuzz) + ")";
      outcome.applied = false;
    }
    placements.push_back(found);
    outcome.hunks.push_back(std::move(report));
  }
  if (!outcome.applied) {
    outcome.text = target;
    return outcome;
  }

  std::vector<std::string> out;
  size_t cursor = 0;
  for (size_t h = 0; h < hunks->size(); ++h) {
    const hunk& hk = (*hunks)[h];
    const placement& p = *placements[h];
    while (cursor < p.target_begin) out.push_back(lines[cursor++]);
    // Indentation of the target relative to the hunk, from the first matched non-blank line.
    std::string add_prefix;
    std::string strip_prefix;
    size_t t = p.target_begin;
    for (size_t k = p.first; k < p.last; ++k) {
      if (hk.lines[k].kind == '+') continue;
      if (!trim(hk.lines[k].text).empty()) {
        std::string hunk_ws = leading_ws(hk.lines[k].text);
        std::string target_ws = leading_ws(lines[t]);
        if (target_ws.size() > hunk_ws.size() &&
            target_ws.compare(0, hunk_ws.size(), hunk_ws) == 0) {
          add_prefix = target_ws.substr(hunk_ws.size());
        } else if (hunk_ws.size() > target_ws.size() &&
                   hunk_ws.compare(0, target_ws.size(), target_ws) == 0) {
          strip_prefix = hunk_ws.substr(target_ws.size());
        }
        break;
      }
      ++t;
    }
    for (size_t k = p.first; k < p.last; ++k) {
      const hunk_line& hl = hk.lines[k];
      if (hl.kind == ' ') {
        out.push_back(lines[cursor++]);
      } else if (hl.kind == '-') {
        ++cursor;
      } else {
        std::string text = hl.text;
        if (!strip_prefix.empty() && text.compare(0, strip_prefix.size(), strip_prefix) == 0) {
          text.erase(0, strip_prefix.size());
        }
        out.push_back(text.empty() ? text : add_prefix + text);
      }
    }
  }
  while (cursor < lines.size()) out.push_back(lines[cursor++]);
  outcome.text = join_lines(out, ends_with_newline(target) || (lines.empty() && !out.empty()));
  return outcome;
}

}  // namespace aopt::agent
