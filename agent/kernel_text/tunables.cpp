#include "agent/kernel_text/tunables.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

// The code part of a line (comments masked): a const/constexpr or #define declaration.
const std::regex& cpp_declaration() {
  static const std::regex re(
      R"(^\s*(?:(?:static|inline)\s+)*(?:const|constexpr)\s+(?:(?:static|const|constexpr)\s+)*([A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?)\s+([A-Za-z_]\w*)\s*=\s*\(?\s*([-+]?[0-9]+)([uUlL]*)\s*\)?\s*;\s*$)");
  return re;
}

const std::regex& define_declaration() {
  static const std::regex re(
      R"(^\s*#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*([-+]?[0-9]+)([uUlL]*)\s*\)?\s*$)");
  return re;
}

// The comment text of an annotation: `tunable:` or `@tunable:` first.
const std::regex& annotation_pattern() {
  static const std::regex re(R"(^@?tunable\s*:(.*)$)", std::regex::icase);
  return re;
}

#define AOPT_INT R"(([-+]?[0-9]+))"
// lo and hi of an interval: [lo, hi], lo..hi, lo-hi or lo to hi.
const std::regex& interval_pattern() {
  static const std::regex re(R"(^(?:range\s*)?(?:\[\s*)" AOPT_INT R"(\s*,\s*)" AOPT_INT
                             R"(\s*\]|)" AOPT_INT R"(\s*(?:\.\.|-|to\s)\s*)" AOPT_INT R"()\s*)",
                             std::regex::icase);
  return re;
}

const std::regex& pow2_prefix() {
  static const std::regex re(R"(^(?:pow2|power\s+of\s+(?:two|2))\s*,?\s*)", std::regex::icase);
  return re;
}

const std::regex& multiple_of_prefix() {
  static const std::regex re(R"(^multiple\s+of\s+)" AOPT_INT R"(\s*,?\s*)", std::regex::icase);
  return re;
}

const std::regex& grid_suffix() {
  static const std::regex re(R"(^,?\s*(?:step\s+|multiple\s+of\s+))" AOPT_INT R"(\s*)",
                             std::regex::icase);
  return re;
}

const std::regex& choice_pattern() {
  static const std::regex re(R"(^(?:choice\s*|one\s+of\s*)?\{([^}]*)\}\s*)", std::regex::icase);
  return re;
}
#undef AOPT_INT

bool parse_int(const std::string& text, int64_t& out) {
  std::string t = trim(text);
  const char* b = t.data();
  const char* e = t.data() + t.size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && ptr == e && b != e;
}

bool is_integer_type(const std::string& type, bool& is_unsigned) {
  static const std::set<std::string> words = {"unsigned", "signed", "long", "short", "int", "char"};
  static const std::set<std::string> named = {"size_t",   "int8_t",   "int16_t",   "int32_t",
                                              "int64_t",  "uint8_t",  "uint16_t",  "uint32_t",
                                              "uint64_t", "intptr_t", "uintptr_t", "ptrdiff_t"};
  std::istringstream in(type);
  std::string word;
  int count = 0;
  bool ok = true;
  is_unsigned = false;
  while (in >> word) {
    ++count;
    std::string bare = word.rfind("std::", 0) == 0 ? word.substr(5) : word;
    if (named.count(bare) != 0) {
      if (bare[0] == 'u' || bare == "size_t") is_unsigned = true;
    } else if (words.count(word) != 0) {
      if (word == "unsigned") is_unsigned = true;
    } else {
      ok = false;
    }
  }
  return ok && count > 0;
}

bool is_pow2(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

// "line 12: " prefix of every error.
std::string at_line(size_t line) {
  return "line " + std::to_string(line) + ": ";
}

constexpr const char* kDomainForms =
    "expected a domain like 1..40, [1, 40], range [1, 40], 1-40, pow2 1..256, "
    "multiple of 8, 256..16384, {1, 2} or choice {1, 2} (docs/tunable-annotations.md)";

// A match at the start of `rest`, consumed: its groups as strings ("" when unmatched), since
// `rest` changes under the match.
struct groups {
  std::vector<std::string> g;
  std::string operator[](size_t i) const { return i < g.size() ? g[i] : std::string(); }
  bool matched(size_t i) const { return i < g.size() && !g[i].empty(); }
};

bool consume(std::string& rest, const std::regex& re, groups& out) {
  std::smatch m;
  if (!std::regex_search(rest, m, re)) return false;
  out.g.clear();
  for (size_t i = 0; i < m.size(); ++i) out.g.push_back(m[i].matched ? m[i].str() : std::string());
  rest = m.suffix().str();
  return true;
}

status parse_domain(const std::string& text, size_t line, tunable& t) {
  const std::string spec = trim(text);
  auto unreadable = [&](const std::string& why) {
    return invalid_argument(at_line(line) + t.name + ": cannot read domain '" + spec + "'" +
                            (why.empty() ? "" : " (" + why + ")") + "; " + kDomainForms);
  };
  std::string rest = spec;
  groups m;
  if (consume(rest, choice_pattern(), m)) {
    t.kind = tunable_kind::choice;
    std::stringstream in(m[1]);
    std::string item;
    while (std::getline(in, item, ',')) {
      int64_t v = 0;
      if (!parse_int(item, v)) {
        return invalid_argument(at_line(line) + t.name + ": choice '" + trim(item) +
                                "' is not an integer");
      }
      if (std::find(t.choices.begin(), t.choices.end(), v) != t.choices.end()) {
        return invalid_argument(at_line(line) + t.name + ": choice " + std::to_string(v) +
                                " is listed twice");
      }
      t.choices.push_back(v);
    }
    if (t.choices.empty()) return invalid_argument(at_line(line) + t.name + ": empty choice list");
    t.lo = *std::min_element(t.choices.begin(), t.choices.end());
    t.hi = *std::max_element(t.choices.begin(), t.choices.end());
  } else {
    int64_t multiple = 0;
    bool snap = false;  // "multiple of s": the grid holds the multiples of s, not lo + k*s
    const bool pow2 = consume(rest, pow2_prefix(), m);
    if (!pow2 && consume(rest, multiple_of_prefix(), m)) {
      snap = true;
      if (!parse_int(m[1], multiple)) return unreadable("the multiple is not an integer");
    }
    if (!consume(rest, interval_pattern(), m)) return unreadable("");
    const bool bracketed = m.matched(1);
    if (!parse_int(bracketed ? m[1] : m[3], t.lo) || !parse_int(bracketed ? m[2] : m[4], t.hi)) {
      return unreadable("the bounds are not integers");
    }
    t.kind = pow2 ? tunable_kind::pow2 : tunable_kind::range;
    t.step = 1;
    if (!pow2 && multiple == 0 && consume(rest, grid_suffix(), m)) {
      snap = m[0].find_first_of("mM") != std::string::npos;
      if (!parse_int(m[1], multiple)) return unreadable("the step is not an integer");
    }
    if (pow2 && t.lo < 1) {
      return invalid_argument(at_line(line) + t.name + ": pow2 lower bound must be >= 1");
    }
    if (multiple != 0) {
      if (multiple < 1) return invalid_argument(at_line(line) + t.name + ": step must be >= 1");
      if (snap) {
        int64_t first = t.lo >= 0 ? (t.lo + multiple - 1) / multiple * multiple
                                  : -((-t.lo) / multiple * multiple);
        int64_t last = t.hi >= 0 ? t.hi / multiple * multiple
                                 : -((-t.hi + multiple - 1) / multiple * multiple);
        if (first > last) {
          return invalid_argument(at_line(line) + t.name + ": no multiple of " +
                                  std::to_string(multiple) + " in [" + std::to_string(t.lo) + ", " +
                                  std::to_string(t.hi) + "]");
        }
        t.lo = first;
        t.hi = last;
      }
      t.step = multiple;
    }
  }
  if (!rest.empty() && std::string("0123456789.,-+[]{}").find(rest.front()) != std::string::npos) {
    return unreadable("unexpected '" + rest + "'");
  }
  t.note = trim(rest);
  if (t.lo > t.hi)
    return invalid_argument(at_line(line) + t.name + ": lower bound above upper bound");
  if (t.kind == tunable_kind::pow2 && t.domain(64).empty()) {
    return invalid_argument(at_line(line) + t.name + ": no power of two in [" +
                            std::to_string(t.lo) + ", " + std::to_string(t.hi) + "]");
  }
  return {};
}

struct located_tunable {
  tunable t;
  size_t literal_begin = 0;  // offset in the source of the value literal
  size_t literal_end = 0;
};

// One line split into code (comments blanked) and the text of its first comment.
struct line_parts {
  std::string code;
  std::string comment;  // without `//` or `/* */`, trimmed; empty when there is none
  bool has_comment = false;
};

line_parts split_line(const std::string& original, const std::string& masked) {
  line_parts p;
  p.code = masked;
  for (size_t i = 0; i + 1 < original.size() && i < masked.size(); ++i) {
    if (masked[i] == ' ' && original[i] == '/' &&
        (original[i + 1] == '/' || original[i + 1] == '*')) {
      std::string c = original.substr(i + 2);
      if (original[i + 1] == '*') {
        size_t close = c.find("*/");
        if (close != std::string::npos) c = c.substr(0, close);
      }
      p.comment = trim(c);
      p.has_comment = true;
      break;
    }
  }
  return p;
}

// Reads the declaration in `code` (a masked line) into `lt`; false when it is none.
bool read_declaration(const std::string& code, size_t line_offset, located_tunable& lt) {
  std::smatch m;
  if (std::regex_match(code, m, cpp_declaration())) {
    lt.t.type = normalize_space(m[1].str());
    lt.t.name = m[2];
    lt.literal_begin = line_offset + static_cast<size_t>(m.position(3));
    lt.literal_end = lt.literal_begin + static_cast<size_t>(m.length(3));
    return true;
  }
  if (std::regex_match(code, m, define_declaration())) {
    lt.t.type = "#define";
    lt.t.name = m[1];
    lt.literal_begin = line_offset + static_cast<size_t>(m.position(2));
    lt.literal_end = lt.literal_begin + static_cast<size_t>(m.length(2));
    return true;
  }
  return false;
}

constexpr const char* kDeclarationForms =
    "expected 'const|constexpr <integer type> NAME = <integer>;' or '#define NAME <integer>' "
    "with the annotation '// tunable: <domain>' on the same line or alone on the line above";

// Validates `lt` (declared at `line_no`, annotated with domain text `domain`).
status check_tunable(located_tunable& lt, const std::string& source, const std::string& domain,
                     size_t line_no) {
  lt.t.line = line_no;
  bool is_unsigned = false;
  if (lt.t.type != "#define" && !is_integer_type(lt.t.type, is_unsigned)) {
    return invalid_argument(at_line(line_no) + lt.t.name + ": type '" + lt.t.type +
                            "' is not an integer type");
  }
  std::string literal = source.substr(lt.literal_begin, lt.literal_end - lt.literal_begin);
  if (!parse_int(literal, lt.t.value)) {
    return invalid_argument(at_line(line_no) + lt.t.name + ": value is out of range");
  }
  AOPT_RETURN_IF_ERROR(parse_domain(domain, line_no, lt.t));
  if (is_unsigned && lt.t.lo < 0) {
    return invalid_argument(at_line(line_no) + lt.t.name + ": negative values for unsigned type " +
                            lt.t.type);
  }
  if (!lt.t.admits(lt.t.value)) {
    return invalid_argument(at_line(line_no) + lt.t.name + " = " + std::to_string(lt.t.value) +
                            " lies outside its domain " + lt.t.domain_text());
  }
  return {};
}

result<std::vector<located_tunable>> locate_tunables(const std::string& source) {
  std::vector<located_tunable> found;
  bool in_block = false;
  bool any_block = false;
  size_t block_start_line = 0;
  std::set<std::string> names;
  const std::string masked = mask_comments_and_strings(source);
  // An annotation alone on its line, waiting for the declaration on the next line.
  std::optional<std::pair<std::string, size_t>> pending;  // domain text, its line
  size_t offset = 0;
  size_t line_no = 0;
  while (offset < source.size()) {
    ++line_no;
    size_t nl = source.find('\n', offset);
    size_t end = nl == std::string::npos ? source.size() : nl;
    std::string line = source.substr(offset, end - offset);
    std::string mline = masked.substr(offset, end - offset);
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
      mline.pop_back();
    }
    const std::string t = trim(line);
    const line_parts parts = split_line(line, mline);
    std::smatch am;
    const bool annotated =
        parts.has_comment && std::regex_match(parts.comment, am, annotation_pattern());
    const bool code_empty = trim(parts.code).empty();
    if (pending && !code_empty && !annotated) {
      located_tunable lt;
      if (!read_declaration(parts.code, offset, lt)) {
        return invalid_argument(at_line(pending->second) +
                                "the annotation is not followed by a declaration; " +
                                kDeclarationForms);
      }
      AOPT_RETURN_IF_ERROR(check_tunable(lt, source, pending->first, line_no));
      if (!names.insert(lt.t.name).second) {
        return invalid_argument(at_line(line_no) + "tunable " + lt.t.name + " is declared twice");
      }
      found.push_back(std::move(lt));
      pending.reset();
    } else if (pending && (annotated || t.rfind("// EVOLVE-BLOCK", 0) == 0)) {
      return invalid_argument(at_line(pending->second) +
                              "the annotation is not followed by a declaration; " +
                              kDeclarationForms);
    }
    if (t.rfind("// EVOLVE-BLOCK-START", 0) == 0) {
      if (in_block) {
        return invalid_argument(at_line(line_no) +
                                "EVOLVE-BLOCK-START inside the block opened at line " +
                                std::to_string(block_start_line));
      }
      in_block = true;
      any_block = true;
      block_start_line = line_no;
    } else if (t.rfind("// EVOLVE-BLOCK-END", 0) == 0) {
      if (!in_block) return invalid_argument(at_line(line_no) + "EVOLVE-BLOCK-END without a start");
      in_block = false;
    } else if (annotated && code_empty) {
      pending.emplace(am[1].str(), line_no);
    } else if (annotated || (in_block && line.find("tunable:") != std::string::npos)) {
      located_tunable lt;
      if (!annotated || !read_declaration(parts.code, offset, lt)) {
        return invalid_argument(at_line(line_no) + kDeclarationForms);
      }
      AOPT_RETURN_IF_ERROR(check_tunable(lt, source, am[1].str(), line_no));
      if (!names.insert(lt.t.name).second) {
        return invalid_argument(at_line(line_no) + "tunable " + lt.t.name + " is declared twice");
      }
      found.push_back(std::move(lt));
    }
    if (nl == std::string::npos) break;
    offset = nl + 1;
  }
  if (pending) {
    return invalid_argument(at_line(pending->second) +
                            "the annotation is not followed by a declaration; " +
                            kDeclarationForms);
  }
  if (in_block) {
    return invalid_argument(at_line(block_start_line) +
                            "EVOLVE-BLOCK-START without EVOLVE-BLOCK-END");
  }
  if (!any_block && found.empty()) {
    return not_found("no EVOLVE-BLOCK and no '// tunable:' annotation in the tiling source");
  }
  return found;
}

}  // namespace

const char* to_string(tunable_kind kind) {
  switch (kind) {
    case tunable_kind::range:
      return "range";
    case tunable_kind::pow2:
      return "pow2";
    case tunable_kind::choice:
      return "choice";
  }
  return "range";
}

bool tunable::admits(int64_t v) const {
  switch (kind) {
    case tunable_kind::range:
      return v >= lo && v <= hi && (v - lo) % step == 0;
    case tunable_kind::pow2:
      return v >= lo && v <= hi && is_pow2(v);
    case tunable_kind::choice:
      return std::find(choices.begin(), choices.end(), v) != choices.end();
  }
  return false;
}

std::vector<int64_t> tunable::domain(size_t limit) const {
  std::vector<int64_t> values;
  switch (kind) {
    case tunable_kind::range: {
      uint64_t count = static_cast<uint64_t>(hi - lo) / static_cast<uint64_t>(step) + 1;
      if (count > limit) return {};
      for (int64_t v = lo; v <= hi; v += step) values.push_back(v);
      break;
    }
    case tunable_kind::pow2:
      for (int64_t v = 1; v > 0 && v <= hi; v *= 2) {
        if (v >= lo) values.push_back(v);
        if (v > (INT64_MAX / 2)) break;
      }
      break;
    case tunable_kind::choice:
      values = choices;
      break;
  }
  if (values.size() > limit) return {};
  return values;
}

std::string tunable::domain_text() const {
  switch (kind) {
    case tunable_kind::range: {
      std::string s = "range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      if (step != 1) s += " step " + std::to_string(step);
      return s;
    }
    case tunable_kind::pow2:
      return "pow2 [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    case tunable_kind::choice: {
      std::string s = "choice {";
      for (size_t i = 0; i < choices.size(); ++i) {
        if (i > 0) s += ", ";
        s += std::to_string(choices[i]);
      }
      return s + "}";
    }
  }
  return {};
}

result<std::vector<tunable>> parse_tunables(const std::string& source) {
  result<std::vector<located_tunable>> located = locate_tunables(source);
  if (!located.ok()) return located.error();
  std::vector<tunable> out;
  out.reserve(located->size());
  for (located_tunable& lt : *located) out.push_back(std::move(lt.t));
  return out;
}

tunable_values current_values(const std::vector<tunable>& tunables) {
  tunable_values values;
  for (const tunable& t : tunables) values[t.name] = t.value;
  return values;
}

result<std::string> apply_values(const std::string& source, const tunable_values& values) {
  result<std::vector<located_tunable>> located = locate_tunables(source);
  if (!located.ok()) return located.error();
  std::vector<const located_tunable*> edits;
  for (const auto& [name, value] : values) {
    auto it = std::find_if(located->begin(), located->end(),
                           [&](const located_tunable& lt) { return lt.t.name == name; });
    if (it == located->end()) return invalid_argument("no tunable named " + name);
    if (!it->t.admits(value)) {
      return invalid_argument(at_line(it->t.line) + name + " = " + std::to_string(value) +
                              " lies outside its domain " + it->t.domain_text());
    }
    edits.push_back(&*it);
  }
  // Back to front, so earlier offsets stay valid.
  std::sort(edits.begin(), edits.end(), [](const located_tunable* a, const located_tunable* b) {
    return a->literal_begin > b->literal_begin;
  });
  std::string out = source;
  for (const located_tunable* lt : edits) {
    out.replace(lt->literal_begin, lt->literal_end - lt->literal_begin,
                std::to_string(values.at(lt->t.name)));
  }
  return out;
}

}  // namespace aopt::agent
