#include "npu/sim/device/tiling_constant_lift.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "base/libclang_handles.hpp"
#include "npu/sim/runtime/lifted_values.hpp"

namespace aopt::npu {

namespace {

constexpr const char* block_start_marker = "EVOLVE-BLOCK-START";
constexpr const char* block_end_marker = "EVOLVE-BLOCK-END";

// [begin, end) byte ranges of the lines between each EVOLVE-BLOCK-START line and its END line.
std::vector<std::pair<size_t, size_t>> block_ranges(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t from = 0;
  while (true) {
    const size_t start = text.find(block_start_marker, from);
    if (start == std::string::npos) break;
    const size_t body = text.find('\n', start);
    if (body == std::string::npos) break;
    const size_t end = text.find(block_end_marker, body);
    if (end == std::string::npos) break;
    const size_t end_line = text.rfind('\n', end);
    ranges.emplace_back(body + 1, end_line == std::string::npos ? end : end_line + 1);
    from = end;
  }
  return ranges;
}

struct lexed_token {
  CXTokenKind kind;
  std::string spelling;
  size_t offset = 0;
};

// The tokens of one block, comments left out, at their offsets in the program. The text is
// candidate code, read here in aopt's own process: it is lexed as C, alone, so that nothing of
// it can make the parse costly (no header is looked for; C has no templates to instantiate; a
// block with a preprocessor directive or a line continuation, which could define or expand a
// macro, is not read at all). C lexes `::` as two colons, which are joined again.
std::optional<std::vector<lexed_token>> lex_block(const std::string& source, size_t begin,
                                                  size_t end) {
  const std::string block = source.substr(begin, end - begin);
  if (block.find_first_of("#\\") != std::string::npos) return std::nullopt;
  static constexpr const char* file_name = "tunables.c";
  clang_handles::index index(clang_createIndex(0, 0));
  const char* args[] = {"-x", "c", "-std=c17", "-fsyntax-only", "-w", "-ferror-limit=1"};
  const clang_handles::translation_unit unit =
      clang_handles::parse_alone(index, file_name, block, args, static_cast<int>(std::size(args)));
  if (!unit) return std::nullopt;
  const clang_handles::tokens tokens(
      unit.get(), clang_handles::whole_file(unit.get(), file_name, block.size()));
  std::vector<lexed_token> out;
  out.reserve(tokens.size());
  for (unsigned i = 0; i < tokens.size(); ++i) {
    if (tokens.kind(i) == CXToken_Comment) continue;
    lexed_token t{tokens.kind(i), tokens.spelling(i), begin + tokens.offset(i)};
    if (t.spelling == ":" && !out.empty() && out.back().spelling == ":" &&
        out.back().offset + 1 == t.offset) {
      out.back().spelling = "::";
      continue;
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The integer types a lifted constant may have: each names one of the fundamental integer types
// the runtime keeps slots for (lifted_slots.cpp). A name the program redefines as another type
// names no slot, and the lifted program does not link.
const std::set<std::string> fixed_width_names = {"int8_t",   "uint8_t",  "int16_t",
                                                 "uint16_t", "int32_t",  "uint32_t",
                                                 "int64_t",  "uint64_t", "size_t"};
const std::set<std::string> integer_keywords = {"unsigned", "signed", "int", "long", "short"};
const std::set<std::string> qualifiers = {"static", "inline", "constexpr", "const"};

// The value of an integer literal's spelling (decimal, hex, octal or binary, digit separators,
// u/l suffixes); nullopt for anything else (a float, a character, a user-defined suffix) or a
// value past 64 bits.
std::optional<uint64_t> integer_literal_value(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '\''), text.end());
  size_t digits_end = text.size();
  while (digits_end > 0 && (text[digits_end - 1] == 'u' || text[digits_end - 1] == 'U' ||
                            text[digits_end - 1] == 'l' || text[digits_end - 1] == 'L')) {
    --digits_end;
  }
  if (text.size() - digits_end > 3) return std::nullopt;
  std::string digits = text.substr(0, digits_end);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits = digits.substr(2);
  } else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    digits = digits.substr(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
    digits = digits.substr(1);
  }
  if (digits.empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// A declaration the rewrite takes, starting at token `first`.
struct lifted_declaration {
  size_t first = 0;      // its first token (a qualifier)
  size_t semicolon = 0;  // its last token
  std::string type;      // as written, tokens joined
  std::string name;
  uint64_t value = 0;
};

std::optional<lifted_declaration> match_declaration(const std::vector<lexed_token>& t, size_t i) {
  lifted_declaration d;
  d.first = i;
  bool constant = false;
  for (; i < t.size() && qualifiers.count(t[i].spelling) != 0; ++i) {
    constant = constant || t[i].spelling == "constexpr" || t[i].spelling == "const";
  }
  if (!constant || i == d.first) return std::nullopt;
  if (i + 2 < t.size() && t[i].spelling == "std" && t[i + 1].spelling == "::" &&
      fixed_width_names.count(t[i + 2].spelling) != 0) {
    d.type = "std::" + t[i + 2].spelling;
    i += 3;
  } else if (i < t.size() && fixed_width_names.count(t[i].spelling) != 0) {
    d.type = t[i].spelling;
    ++i;
  } else {
    for (; i < t.size() && integer_keywords.count(t[i].spelling) != 0; ++i) {
      d.type += (d.type.empty() ? "" : " ") + t[i].spelling;
    }
    if (d.type.empty()) return std::nullopt;
  }
  if (i + 3 >= t.size() || t[i].kind != CXToken_Identifier || t[i + 1].spelling != "=" ||
      t[i + 2].kind != CXToken_Literal || t[i + 3].spelling != ";") {
    return std::nullopt;
  }
  const std::optional<uint64_t> value = integer_literal_value(t[i + 2].spelling);
  if (!value) return std::nullopt;
  d.name = t[i].spelling;
  d.value = *value;
  d.semicolon = i + 3;
  return d;
}

}  // namespace

std::optional<lifted_tiling> lift_tiling_constants(const std::string& tiling_source) {
  lifted_tiling lifted;
  size_t copied = 0;  // bytes of tiling_source already in lifted.source
  for (const auto& [begin, end] : block_ranges(tiling_source)) {
    const std::optional<std::vector<lexed_token>> tokens = lex_block(tiling_source, begin, end);
    if (!tokens) continue;
    for (size_t i = 0; i < tokens->size() && lifted.values.size() < sim::lifted_slot_count;) {
      const std::optional<lifted_declaration> d = match_declaration(*tokens, i);
      if (!d) {
        ++i;
        continue;
      }
      const size_t from = (*tokens)[i].offset;
      const size_t to = (*tokens)[d->semicolon].offset + 1;
      const std::string replaced = tiling_source.substr(from, to - from);
      lifted.source += tiling_source.substr(copied, from - copied);
      lifted.source += "static const " + d->type + "& " + d->name + " = aopt_lifted::slot<" +
                       d->type + ">[" + std::to_string(lifted.values.size()) + "];";
      // The declaration's own line breaks, after it: the lines below keep their numbers.
      lifted.source += std::string(std::count(replaced.begin(), replaced.end(), '\n'), '\n');
      copied = to;
      lifted.values.push_back(d->value);
      lifted.names.push_back(d->name);
      i = d->semicolon + 1;
    }
  }
  if (lifted.values.empty()) return std::nullopt;
  lifted.source += tiling_source.substr(copied);
  return lifted;
}

}  // namespace aopt::npu
