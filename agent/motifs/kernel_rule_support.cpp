#include "agent/motifs/kernel_rule_support.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <vector>

#include "agent/kernel_text/tiling_names.hpp"

namespace aopt::agent {

const std::map<std::string, elementwise_op>& elementwise_apis() {
  static const std::map<std::string, elementwise_op> apis = {
      {"Add", {"+", false}},  {"Sub", {"-", false}},   {"Mul", {"*", false}},
      {"Div", {"/", false}},  {"Max", {"max", false}}, {"Min", {"min", false}},
      {"Adds", {"+", true}},  {"Muls", {"*", true}},   {"Maxs", {"max", true}},
      {"Mins", {"min", true}}};
  return apis;
}

std::optional<std::string> compute_type(const std::string& element_type) {
  static const std::set<std::string> floats = {"half", "float", "bfloat16_t", "float16_t",
                                               "half_t"};
  static const std::set<std::string> ints = {"int8_t",  "uint8_t",  "int16_t", "uint16_t",
                                             "int32_t", "uint32_t", "int64_t", "int"};
  if (floats.count(element_type) != 0) return std::string("float");
  if (ints.count(element_type) != 0) return std::string("int64_t");
  return std::nullopt;
}

std::optional<std::string> shifted_operand(const std::string& operand, const std::string& offset) {
  static const std::regex plain(R"(^([A-Za-z_]\w*)$)");
  static const std::regex subscript(R"(^([A-Za-z_]\w*)\s*\[([\s\S]*)\]$)");
  std::string t = trim(operand);
  std::smatch m;
  if (std::regex_match(t, m, plain)) return std::string(m[1]) + "[" + offset + "]";
  if (std::regex_match(t, m, subscript)) {
    std::string inner = m[2];
    if (std::count(inner.begin(), inner.end(), '[') !=
        std::count(inner.begin(), inner.end(), ']')) {
      return std::nullopt;
    }
    return std::string(m[1]) + "[(" + trim(inner) + ") + " + offset + "]";
  }
  return std::nullopt;
}

bool is_stage_call(const kernel_facts& facts, text_range statement) {
  static const std::regex call(R"(^\s*([A-Za-z_]\w*)\s*\([\s\S]*\)\s*;\s*$)");
  std::string s = facts.masked().substr(statement.begin, statement.end - statement.begin);
  std::smatch m;
  if (!std::regex_match(s, m, call)) return false;
  std::string name = m[1];
  if (is_vector_api(name) || name == "DataCopy" || name == "DataCopyPad" || name == "PipeBarrier") {
    return false;
  }
  return find_function_body(facts.masked(), name).has_value();
}

bool is_rows_per_tile(const std::string& name) {
  std::vector<std::string> words = identifier_words(name);
  auto has = [&](const char* w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  return (has("rows") || has("row")) && (has("tile") || has("tiles"));
}

std::vector<tile_member_assignment> tile_member_assignments(const std::string& masked) {
  static const std::regex assignment(R"(this\s*->\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*;)");
  std::vector<tile_member_assignment> out;
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), assignment);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const std::string member = m[1];
    const bool rows = is_rows_per_tile(member);
    if (!rows && classify_tiling_name(member) != tiling_role::tile_size) continue;
    const size_t value_begin = static_cast<size_t>(m.position(2));
    out.push_back({member,
                   m[2],
                   rows,
                   static_cast<size_t>(m.position(0)),
                   {value_begin, value_begin + static_cast<size_t>(m.length(2))}});
  }
  return out;
}

std::string shape_of(const std::string& text) {
  static const std::regex cast(R"(static_cast<[\w:]+>)");
  std::string squeezed;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) squeezed += c;
  }
  return std::regex_replace(squeezed, cast, "");
}

std::string barrier_pipe(const std::string& masked, text_range s) {
  // PipeBarrier<PIPE_V>(), AscendC::PipeBarrier<PIPE_ALL>(), and the intrinsic
  // pipe_barrier(PIPE_ALL) that real kernels also write.
  static const std::regex barrier(
      R"(^(?:AscendC::)?(?:PipeBarrier<PIPE_(\w+)>\(\)|pipe_barrier\(PIPE_(\w+)\));$)");
  std::smatch m;
  const std::string shape = shape_of(masked.substr(s.begin, s.end - s.begin));
  if (!std::regex_match(shape, m, barrier)) return {};
  return m[1].matched ? m[1].str() : m[2].str();
}

bool is_full_barrier(const std::string& masked, text_range s) {
  return barrier_pipe(masked, s) == "ALL";
}

std::optional<call_site> whole_call(const kernel_facts& f, text_range s, const std::string& api) {
  std::vector<call_site> calls = find_calls(f.text(), f.masked(), api, s);
  if (calls.size() != 1) return std::nullopt;
  std::optional<text_range> whole =
      call_statement(f.masked(), calls[0].name_begin, calls[0].parens);
  if (!whole || whole->begin != s.begin) return std::nullopt;
  return calls[0];
}

std::set<std::string> assigned_in(const std::string& text) {
  static const std::regex assignment(R"(([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=))");
  static const std::regex postfix(R"(([A-Za-z_]\w*)\s*(?:\+\+|--))");
  static const std::regex prefix(R"((?:\+\+|--)\s*([A-Za-z_]\w*))");
  std::set<std::string> out;
  for (const std::regex* r : {&assignment, &postfix, &prefix}) {
    for (std::sregex_iterator it(text.begin(), text.end(), *r), end; it != end; ++it) {
      out.insert((*it)[1].str());
    }
  }
  return out;
}

std::string slice(const std::string& text, text_range r) {
  return text.substr(r.begin, r.end - r.begin);
}

text_edit remove_statement(const std::string& masked, text_range s) {
  std::optional<text_range> lines = own_lines(masked, s);
  if (lines && lines->end < masked.size()) return {{lines->begin, lines->end + 1}, ""};
  return {s, ""};
}

std::string unwrap_count(const std::string& text) {
  static const std::regex wrapped(R"(^static_cast<\s*uint32_t\s*>\s*\(([\s\S]*)\)$)");
  std::smatch m;
  std::string t = trim(text);
  if (std::regex_match(t, m, wrapped)) {
    std::string inner = m[1];
    int depth = 0;
    for (char c : inner) {
      if (c == '(') ++depth;
      if (c == ')' && --depth < 0) return t;  // the parentheses were not one pair
    }
    if (depth == 0) return trim(inner);
  }
  return t;
}

std::optional<counted_loop> read_counted_loop(const kernel_facts& f, const loop_range& loop) {
  static const std::regex header(
      R"(^\(\s*(?:[\w:]+\s+)+([A-Za-z_]\w*)\s*=\s*0\s*;\s*([A-Za-z_]\w*)\s*<\s*([\s\S]+?)\s*;\s*([\s\S]+?)\s*\)$)");
  if (f.masked().compare(loop.keyword, 3, "for") != 0) return std::nullopt;
  std::string h = f.text().substr(loop.header.begin, loop.header.end - loop.header.begin);
  std::smatch m;
  if (!std::regex_match(h, m, header) || m[1] != m[2]) return std::nullopt;
  counted_loop c;
  c.variable = m[1];
  c.bound = trim(std::string(m[3]));
  std::string step = shape_of(m[4]);
  if (step == c.variable + "++" || step == "++" + c.variable || step == c.variable + "+=1") {
    c.step = "1";
  } else if (step.rfind(c.variable + "+=", 0) == 0) {
    std::string raw = m[4];
    c.step = trim(raw.substr(raw.find("+=") + 2));
  } else {
    return std::nullopt;
  }
  return c;
}

std::optional<loop_declaration> declared_loop_variable(const kernel_facts& f,
                                                       const loop_range& loop) {
  static const std::regex head(R"(^\(\s*((?:[\w:]+\s+)+)([A-Za-z_]\w*)\s*=)");
  if (f.masked().compare(loop.keyword, 3, "for") != 0) return std::nullopt;
  const std::string h = f.text().substr(loop.header.begin, loop.header.end - loop.header.begin);
  std::smatch m;
  if (!std::regex_search(h, m, head)) return std::nullopt;
  return loop_declaration{trim(std::string(m[1])), m[2]};
}

std::string unwrap(std::string text) {
  static const std::regex cast_head(R"(^static_cast\s*<[^<>()]*>\s*\()");
  for (;;) {
    text = trim(text);
    std::smatch m;
    size_t open = std::string::npos;
    if (std::regex_search(text, m, cast_head)) {
      open = static_cast<size_t>(m.length(0)) - 1;
    } else if (!text.empty() && text[0] == '(') {
      open = 0;
    }
    if (open == std::string::npos) return text;
    std::string masked = mask_comments_and_strings(text);
    if (find_matching(masked, open) != text.size() - 1) return text;
    text = text.substr(open + 1, text.size() - open - 2);
  }
}

bool invariant_scalar(const std::string& expr, const std::string& i) {
  return !trim(expr).empty() && find_identifier(expr, i) == std::string::npos &&
         expr.find("GetValue") == std::string::npos;
}

std::optional<binary_split> split_binary(const std::string& expr) {
  std::string e = unwrap(expr);
  std::string masked = mask_comments_and_strings(e);
  size_t additive = std::string::npos;
  size_t multiplicative = std::string::npos;
  int depth = 0;
  for (size_t k = 0; k < masked.size(); ++k) {
    char c = masked[k];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth != 0 || (c != '+' && c != '-' && c != '*' && c != '/')) continue;
    if (c == '-' && k + 1 < masked.size() && masked[k + 1] == '>') continue;
    size_t p = k;
    while (p > 0 && std::isspace(static_cast<unsigned char>(masked[p - 1]))) --p;
    if (p == 0 || std::string("+-*/(<,?:=").find(masked[p - 1]) != std::string::npos)
      continue;  // unary
    if ((masked[p - 1] == 'e' || masked[p - 1] == 'E') && p > 1 &&
        std::isdigit(static_cast<unsigned char>(masked[p - 2]))) {
      continue;  // an exponent, as in 1e-3
    }
    if (c == '+' || c == '-') {
      additive = k;
    } else {
      multiplicative = k;
    }
  }
  size_t at = additive != std::string::npos ? additive : multiplicative;
  if (at == std::string::npos) return std::nullopt;
  return binary_split{trim(e.substr(0, at)), e[at], trim(e.substr(at + 1))};
}

bool last_core_takes_remainder(const std::string& statement, const std::string& block_idx,
                               const std::string& offset, const std::string& length) {
  const std::string member = length.rfind("this->", 0) == 0 ? length.substr(6) : length;
  std::smatch m;
  static const std::regex remainder(
      R"(^if\((\w+)\+1==GetBlockNum\(\)\)\{(?:this->)?(\w+)=\w+-(\w+);\}$)");
  return std::regex_match(statement, m, remainder) && m[1] == block_idx && m[2] == member &&
         m[3] == offset;
}

}  // namespace aopt::agent
