#include "agent/motifs/index_fill_edits.hpp"

#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "agent/motifs/kernel_rule_support.hpp"

namespace aopt::agent {

namespace {

// The element types CreateVecIndex fills.
bool index_fill_type(const std::string& element_type) {
  static const std::set<std::string> types = {"half", "float", "int16_t", "int32_t"};
  return types.count(element_type) != 0;
}

bool is_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!is_identifier_char(c)) return false;
  }
  return true;
}

// `text` without static_cast wrappers, enclosing parentheses and C-style casts to a named type
// (`(uint32_t)i`), which public kernels write as often as static_cast.
std::string without_casts(std::string text) {
  for (;;) {
    text = unwrap(text);
    if (text.empty() || text[0] != '(') return text;
    const size_t close = find_matching(mask_comments_and_strings(text), 0);
    if (close == std::string::npos) return text;
    const std::string type = trim(text.substr(1, close - 1));
    const std::string rest = trim(text.substr(close + 1));
    // `(T)x`: a type name in the parentheses and an operand right after them (`(a) + b` has an
    // operator there and is no cast).
    if (!is_identifier(type) || rest.empty() || !(is_identifier_char(rest[0]) || rest[0] == '(')) {
      return text;
    }
    text = rest;
  }
}

// The first value of an index fill whose element `i` gets `value`: "0" for `i`, F for `i + F` or
// `F + i` with F loop-invariant; nullopt for any other value.
std::optional<std::string> fill_start(const std::string& value, const std::string& i) {
  const std::string v = without_casts(value);
  if (v == i) return std::string("0");
  std::optional<binary_split> sum = split_binary(v);
  if (!sum || sum->op != '+') return std::nullopt;
  if (without_casts(sum->lhs) == i && invariant_scalar(sum->rhs, i)) return without_casts(sum->rhs);
  if (without_casts(sum->rhs) == i && invariant_scalar(sum->lhs, i)) return without_casts(sum->lhs);
  return std::nullopt;
}

// The tensor `d` of a statement that is only `d.SetValue(...)`, with the call; nullopt otherwise.
struct set_value_call {
  std::string tensor;
  call_site call;
};

std::optional<set_value_call> set_value_statement(const kernel_facts& f, text_range s) {
  std::optional<call_site> call = whole_call(f, s, "SetValue");
  if (!call || call->arguments.size() != 2) return std::nullopt;
  std::string receiver = trim(f.masked().substr(s.begin, call->name_begin - s.begin));
  if (receiver.empty() || receiver.back() != '.') return std::nullopt;
  receiver = trim(receiver.substr(0, receiver.size() - 1));
  if (!is_identifier(receiver)) return std::nullopt;
  return set_value_call{receiver, std::move(*call)};
}

}  // namespace

std::vector<text_edit> scalar_index_fill_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  for (const call_site& c : find_calls(f.text(), masked, "CreateVecIndex", {0, masked.size()})) {
    if (c.arguments.size() != 3 || (c.name_begin > 0 && masked[c.name_begin - 1] == '.')) continue;
    const std::string& dst = c.arguments[0];
    std::optional<std::string> type = f.element_type(dst);
    if (!is_identifier(dst) || !type || f.is_global(dst) || !index_fill_type(*type)) continue;
    const std::string compute = *compute_type(*type);
    std::optional<text_range> stmt = call_statement(masked, c.name_begin, c.parens);
    if (!stmt) continue;
    std::optional<text_range> lines = own_lines(masked, *stmt);
    if (!lines) continue;
    const std::string i = fresh_identifier(f.text(), "fillIdx");
    const std::vector<std::string> loop = {
        "for (uint32_t " + i + " = 0; " + i + " < static_cast<uint32_t>(" + c.arguments[2] + "); " +
            i + "++) {",
        std::string(kIndentUnit) + dst + ".SetValue(" + i + ", static_cast<" + *type +
            ">(static_cast<" + compute + ">(" + c.arguments[1] + ") + static_cast<" + compute +
            ">(" + i + ")));",
        "}"};
    edits.push_back({*lines, indented(loop, line_indent(f.text(), lines->begin))});
  }
  return edits;
}

std::vector<text_edit> vector_index_fill_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    std::optional<counted_loop> c = read_counted_loop(f, loop);
    if (!c || c->step != "1") continue;
    const std::vector<text_range> body = split_statements(masked, loop.body);
    if (body.size() != 1) continue;
    std::optional<set_value_call> set = set_value_statement(f, body[0]);
    if (!set || without_casts(set->call.arguments[0]) != c->variable) continue;
    std::optional<std::string> type = f.element_type(set->tensor);
    if (!type || f.is_global(set->tensor) || !index_fill_type(*type)) continue;
    std::optional<std::string> first = fill_start(set->call.arguments[1], c->variable);
    if (!first) continue;
    std::optional<text_range> lines = own_lines(masked, {loop.keyword, loop.body.end});
    if (!lines) continue;
    edits.push_back({*lines, line_indent(f.text(), lines->begin) + "CreateVecIndex(" + set->tensor +
                                 ", static_cast<" + *type + ">(" + *first + "), " +
                                 unwrap_count(c->bound) + ");"});
  }
  return edits;
}

}  // namespace aopt::agent
