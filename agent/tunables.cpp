#include "agent/tunables.hpp"

#include <algorithm>
#include <charconv>
#include <regex>
#include <set>
#include <sstream>

#include "agent/source_text.hpp"

namespace aopt::agent {

namespace {

const std::regex& declaration_pattern() {
  static const std::regex re(
      R"(^\s*(?:static\s+)?constexpr\s+(?:static\s+)?([A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?)\s+([A-Za-z_]\w*)\s*=\s*([-+]?[0-9]+)([uUlL]*)\s*;\s*//\s*tunable:(.*)$)");
  return re;
}

const std::regex& range_pattern() {
  static const std::regex re(
      R"(^range\s*\[\s*([-+]?[0-9]+)\s*,\s*([-+]?[0-9]+)\s*\](?:\s*step\s+([-+]?[0-9]+))?(\s.*)?$)");
  return re;
}

const std::regex& pow2_pattern() {
  static const std::regex re(R"(^pow2\s*\[\s*([-+]?[0-9]+)\s*,\s*([-+]?[0-9]+)\s*\](\s.*)?$)");
  return re;
}

const std::regex& choice_pattern() {
  static const std::regex re(R"(^choice\s*\{([^}]*)\}(\s.*)?$)");
  return re;
}

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

status parse_domain(const std::string& text, size_t line, tunable& t) {
  std::string spec = trim(text);
  std::smatch m;
  if (std::regex_match(spec, m, range_pattern())) {
    t.kind = tunable_kind::range;
    if (!parse_int(m[1], t.lo) || !parse_int(m[2], t.hi)) {
      return invalid_argument(at_line(line) + t.name + ": range bounds are not integers");
    }
    t.step = 1;
    if (m[3].matched && !parse_int(m[3], t.step)) {
      return invalid_argument(at_line(line) + t.name + ": step is not an integer");
    }
    if (t.step < 1) return invalid_argument(at_line(line) + t.name + ": step must be >= 1");
  } else if (std::regex_match(spec, m, pow2_pattern())) {
    t.kind = tunable_kind::pow2;
    if (!parse_int(m[1], t.lo) || !parse_int(m[2], t.hi)) {
      return invalid_argument(at_line(line) + t.name + ": pow2 bounds are not integers");
    }
    if (t.lo < 1)
      return invalid_argument(at_line(line) + t.name + ": pow2 lower bound must be >= 1");
  } else if (std::regex_match(spec, m, choice_pattern())) {
    t.kind = tunable_kind::choice;
    std::string list = m[1];
    std::stringstream in(list);
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
    return invalid_argument(at_line(line) + t.name + ": cannot read domain '" + spec +
                            "' (expected range [lo, hi], range [lo, hi] step s, pow2 [lo, hi] "
                            "or choice {a, b, ...})");
  }
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

result<std::vector<located_tunable>> locate_tunables(const std::string& source) {
  std::vector<located_tunable> found;
  bool in_block = false;
  bool any_block = false;
  size_t block_start_line = 0;
  size_t offset = 0;
  size_t line_no = 0;
  std::set<std::string> names;
  while (offset < source.size()) {
    ++line_no;
    size_t nl = source.find('\n', offset);
    size_t end = nl == std::string::npos ? source.size() : nl;
    std::string line = source.substr(offset, end - offset);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string t = trim(line);
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
    } else if (in_block && line.find("tunable:") != std::string::npos) {
      std::smatch m;
      if (!std::regex_match(line, m, declaration_pattern())) {
        return invalid_argument(at_line(line_no) +
                                "expected 'constexpr <integer type> NAME = <integer>;  // tunable: "
                                "<domain>'");
      }
      located_tunable lt;
      lt.t.type = m[1];
      lt.t.name = m[2];
      lt.t.line = line_no;
      bool is_unsigned = false;
      if (!is_integer_type(lt.t.type, is_unsigned)) {
        return invalid_argument(at_line(line_no) + lt.t.name + ": type '" + lt.t.type +
                                "' is not an integer type");
      }
      if (!parse_int(m[3], lt.t.value)) {
        return invalid_argument(at_line(line_no) + lt.t.name + ": value is out of range");
      }
      AOPT_RETURN_IF_ERROR(parse_domain(m[5], line_no, lt.t));
      if (is_unsigned && lt.t.lo < 0) {
        return invalid_argument(at_line(line_no) + lt.t.name +
                                ": negative values for unsigned type " + lt.t.type);
      }
      if (!lt.t.admits(lt.t.value)) {
        return invalid_argument(at_line(line_no) + lt.t.name + " = " + std::to_string(lt.t.value) +
                                " lies outside its domain " + lt.t.domain_text());
      }
      if (!names.insert(lt.t.name).second) {
        return invalid_argument(at_line(line_no) + "tunable " + lt.t.name + " is declared twice");
      }
      lt.literal_begin = offset + static_cast<size_t>(m.position(3));
      lt.literal_end = lt.literal_begin + static_cast<size_t>(m.length(3));
      found.push_back(std::move(lt));
    }
    if (nl == std::string::npos) break;
    offset = nl + 1;
  }
  if (in_block) {
    return invalid_argument(at_line(block_start_line) +
                            "EVOLVE-BLOCK-START without EVOLVE-BLOCK-END");
  }
  if (!any_block) return not_found("no EVOLVE-BLOCK in the tiling source");
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
