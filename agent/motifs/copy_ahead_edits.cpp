#include "agent/motifs/copy_ahead_edits.hpp"

#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>

#include "agent/motifs/kernel_rule_support.hpp"
#include "agent/motifs/statement_moves.hpp"

namespace aopt::agent {

namespace {

// A loop bound the body cannot change: a name or a member path (`n`, `this->n`, `t.n`).
bool plain_bound(const std::string& bound) {
  static const std::regex path(
      R"(^(?:this\s*->\s*)?[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*$)");
  return std::regex_match(bound, path);
}

// The last name of a bound's member path: what an assignment in the body would name.
std::string bound_name(const std::string& bound) {
  size_t end = bound.size();
  size_t begin = end;
  while (begin > 0 && is_identifier_char(bound[begin - 1])) --begin;
  return bound.substr(begin, end - begin);
}

// The calls an initializer may make and still have no side effect.
bool pure_callee(const std::string& name) {
  static const std::set<std::string> pure = {"static_cast", "min", "max", "std::min", "std::max"};
  return pure.count(name) != 0;
}

// An initializer without side effects: no assignment, no increment, no call but pure_callee's.
bool side_effect_free(const std::string& masked_init) {
  const std::string& s = masked_init;
  if (s.find("++") != std::string::npos || s.find("--") != std::string::npos) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '=') {
      const bool comparison = (i > 0 && std::string("=!<>").find(s[i - 1]) != std::string::npos) ||
                              (i + 1 < s.size() && s[i + 1] == '=');
      if (!comparison) return false;
    }
    if (s[i] != '(') continue;
    size_t q = i;
    while (q > 0 && s[q - 1] == ' ') --q;
    if (q > 0 && s[q - 1] == '>') {  // template arguments: static_cast<T>(...)
      int depth = 0;
      while (q > 0) {
        --q;
        if (s[q] == '>') ++depth;
        if (s[q] == '<' && --depth == 0) break;
      }
      while (q > 0 && s[q - 1] == ' ') --q;
    }
    size_t b = q;
    while (b > 0 && (is_identifier_char(s[b - 1]) || s[b - 1] == ':')) --b;
    if (b == q) continue;  // a parenthesized expression or a C-style cast
    if (!pure_callee(s.substr(b, q - b))) return false;
  }
  return true;
}

// A single-line declaration with an initializer free of side effects: `T name = init;`.
struct declaration_line {
  std::string name;
  std::string text;  // the statement as written
};

std::optional<declaration_line> pure_declaration(const kernel_facts& f, text_range s) {
  static const std::regex declaration(
      R"(^(?:const\s+)?[A-Za-z_][\w:]*(?:\s*<[^;=]*>)?\s+([A-Za-z_]\w*)\s*=\s*([^;]+);$)");
  std::optional<std::string> line = single_line_statement(f, s);
  if (!line) return std::nullopt;
  const std::string masked = slice(f.masked(), s);
  std::smatch m;
  if (!std::regex_match(masked, m, declaration) || !side_effect_free(m[2])) return std::nullopt;
  return declaration_line{m[1], *line};
}

// Locals a function body declares: names after a type (or `>`, `*`, `&`) that are followed by
// `=`, `;`, `{`, `(` or `[`.
bool declared_in(const std::string& masked_body, const std::string& name) {
  const std::regex declaration("[\\w>*&]\\s+" + name + "\\s*[=;{(\\[]");
  return std::regex_search(masked_body, declaration);
}

// Every queue `load_code` allocates from has room for a second tile: its InitBuffer count is not
// 1, written or named. A runtime count (a tiling field) may be 2 or more and is left to the device.
bool queues_hold_two_tiles(const kernel_facts& f, const std::string& load_code) {
  const std::string& masked = f.masked();
  std::map<std::string, int64_t> constants;
  for (const int_constant& c : find_int_constants(masked)) constants[c.name] = c.value;
  static const std::regex allocation(R"(([A-Za-z_]\w*)\s*\.\s*AllocTensor\b)");
  std::set<std::string> queues;
  for (auto it = std::sregex_iterator(load_code.begin(), load_code.end(), allocation);
       it != std::sregex_iterator(); ++it) {
    queues.insert((*it)[1]);
  }
  static const std::regex one(R"(^1[uU]?$)");
  for (const call_site& call : find_calls(f.text(), masked, "InitBuffer", {0, masked.size()})) {
    if (call.arguments.size() != 3 || queues.count(operand_base(call.arguments[0])) == 0) continue;
    const std::string count = trim(call.arguments[1]);
    const auto named = constants.find(count);
    if (std::regex_match(count, one) || (named != constants.end() && named->second == 1)) {
      return false;
    }
  }
  return true;
}

// The names `code` (a function body or a statement, masked) writes without declaring them:
// members and globals.
std::set<std::string> outer_names_written(const std::string& code) {
  static const std::regex written(
      R"((?:^|[;{}])\s*(?:\+\+|--)?\s*(?:this\s*->\s*)?([A-Za-z_]\w*)(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\]]*\])*\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--))");
  const std::string text = ";" + code;
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), written);
       it != std::sregex_iterator(); ++it) {
    if (!declared_in(code, (*it)[1])) names.insert((*it)[1]);
  }
  return names;
}

// The body of the load stage `s` calls, masked, when `s` calls one.
std::optional<std::string> load_stage_body(const kernel_facts& f, text_range s) {
  if (!is_stage_call(f, s)) return std::nullopt;
  std::optional<text_range> body = called_function_body(f, s);
  if (!body) return std::nullopt;
  const std::vector<pipe_kind> pipes = f.pipes(*body);
  if (pipes.empty()) return std::nullopt;
  for (pipe_kind p : pipes) {
    if (p != pipe_kind::mte2) return std::nullopt;
  }
  std::string code = slice(f.masked(), *body);
  if (code.find("EnQue") == std::string::npos || !queues_hold_two_tiles(f, code) ||
      !outer_names_written(code.substr(1)).empty()) {
    return std::nullopt;
  }
  return code;
}

// What `statements` write that `load_code` names: a member a later stage (or the loop body
// itself) sets and the load reads, which tile i + 1's load would read before tile i set it.
bool writes_what_load_reads(const kernel_facts& f, const std::vector<text_range>& statements,
                            const std::string& load_code) {
  for (text_range s : statements) {
    std::string code = slice(f.masked(), s);
    if (is_stage_call(f, s)) {
      if (std::optional<text_range> body = called_function_body(f, s)) {
        code += "\n" + slice(f.masked(), *body).substr(1);
      }
    }
    for (const std::string& name : outer_names_written(code)) {
      if (find_identifier(load_code, name) != std::string::npos) return true;
    }
  }
  return false;
}

// A scalar access follows vector work somewhere in `pipes`: the scalar unit waits there.
bool scalar_waits_for_vector(const std::vector<pipe_kind>& pipes) {
  bool vector = false;
  for (pipe_kind p : pipes) {
    if (p == pipe_kind::vector) vector = true;
    if (p == pipe_kind::scalar && vector) return true;
  }
  return false;
}

// The loops of the kernel that count by 1 (`for (... i = 0; i < N; i++)`), with their reading.
struct unit_step_loop {
  loop_range loop;
  counted_loop counted;
};

std::vector<unit_step_loop> unit_step_loops(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<unit_step_loop> loops;
  for (const loop_range& found : find_loops(masked, {0, masked.size()})) {
    std::optional<loop_range> loop = loop_at(f, {found.keyword, found.body.end});
    if (!loop) continue;
    std::optional<counted_loop> counted = read_counted_loop(f, *loop);
    if (counted && counted->step == "1") loops.push_back({*loop, *counted});
  }
  return loops;
}

}  // namespace

std::vector<text_edit> copy_in_ahead_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  for (const auto& [loop, counted] : unit_step_loops(f)) {
    std::optional<loop_declaration> declared = declared_loop_variable(f, loop);
    if (!declared || !plain_bound(counted.bound)) continue;
    const std::string& i = counted.variable;
    const std::string body_code = slice(masked, loop.body);
    const std::set<std::string> assigned = assigned_in(body_code);
    if (assigned.count(i) != 0 || assigned.count(bound_name(counted.bound)) != 0) continue;

    const std::vector<text_range> body = split_statements(masked, loop.body);
    std::vector<declaration_line> leading;
    size_t load = 0;
    for (; load < body.size(); ++load) {
      std::optional<declaration_line> d = pure_declaration(f, body[load]);
      if (!d) break;
      leading.push_back(*d);
    }
    if (load + 1 >= body.size()) continue;
    std::optional<std::string> call = single_line_statement(f, body[load]);
    std::optional<std::string> load_code = load_stage_body(f, body[load]);
    if (!call || !load_code) continue;
    if (writes_what_load_reads(f, {body.begin() + load + 1, body.end()}, *load_code)) continue;
    if (!scalar_waits_for_vector(f.pipes({body[load + 1].begin, body.back().end}))) continue;

    // The declarations the call needs, in their order, and whether it needs the loop variable.
    std::set<std::string> needed = free_identifiers(*call);
    std::vector<declaration_line> copied;
    for (auto d = leading.rbegin(); d != leading.rend(); ++d) {
      if (needed.count(d->name) == 0) continue;
      std::set<std::string> uses = free_identifiers(d->text);
      uses.erase(d->name);
      needed.insert(uses.begin(), uses.end());
      copied.insert(copied.begin(), *d);
    }
    const std::string bound = trim(counted.bound);
    std::vector<std::string> first = {"if (" + bound + " > 0) {"};
    if (needed.count(i) != 0)
      first.push_back(std::string(kIndentUnit) + declared->type + " " + i + " = 0;");
    for (const declaration_line& d : copied) first.push_back(kIndentUnit + trim(d.text));
    first.push_back(kIndentUnit + trim(*call));
    first.push_back("}");

    std::map<std::string, std::string> ahead = {{i, "(" + i + " + 1)"}};
    for (const declaration_line& d : copied)
      ahead[d.name] = fresh_identifier(masked, d.name + "Ahead");
    std::vector<std::string> next = {"if (" + i + " + 1 < " + bound + ") {"};
    for (const declaration_line& d : copied) {
      next.push_back(kIndentUnit + replace_free_identifiers(trim(d.text), ahead));
    }
    next.push_back(kIndentUnit + replace_free_identifiers(trim(*call), ahead));
    next.push_back("}");

    edits.push_back(insert_before_loop(f, loop, first));
    text_edit top = insert_at_body_top(f, loop, next, body_indent(f, loop));
    text_edit removal = remove_statement(masked, body[load]);
    if (removal.range.begin == top.range.begin) {
      removal.replacement = top.replacement;
      edits.push_back(removal);
    } else {
      edits.push_back(top);
      edits.push_back(removal);
    }
  }
  return edits;
}

std::vector<text_edit> in_order_copy_in_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  for (const auto& [loop, counted] : unit_step_loops(f)) {
    const std::string& i = counted.variable;
    const std::string bound = shape_of(counted.bound);

    // The statement right before the loop: `if (N > 0) { ... Load(a); }`.
    const size_t start = line_begin(masked, loop.keyword);
    size_t close = start;
    while (close > 0 && std::isspace(static_cast<unsigned char>(masked[close - 1]))) --close;
    if (close == 0 || masked[close - 1] != '}') continue;
    size_t open = close - 1;
    for (int depth = 0;; --open) {
      if (masked[open] == '}') ++depth;
      if (masked[open] == '{' && --depth == 0) break;
      if (open == 0) break;
    }
    if (masked[open] != '{') continue;
    const size_t first_begin = line_begin(masked, open);
    const text_range first_block{open, close};
    const std::string first_head = shape_of(masked.substr(first_begin, open - first_begin));
    if (first_head != "if(" + bound + ">0)") continue;
    const std::vector<text_range> first = split_statements(masked, first_block);
    if (first.empty()) continue;
    std::optional<std::string> call = single_line_statement(f, first.back());
    std::optional<std::string> stage = called_function(f, first.back());
    if (!call || !stage) continue;

    // The body's first statement: `if (i + 1 < N) { ... Load(b); }`.
    const std::vector<text_range> body = split_statements(masked, loop.body);
    if (body.size() < 2) continue;
    const std::string head = shape_of(slice(masked, body[0]));
    if (head.rfind("if(" + i + "+1<" + bound + "){", 0) != 0) continue;
    const size_t inner_open = masked.find('{', body[0].begin);
    const std::vector<text_range> inner = split_statements(masked, {inner_open, body[0].end});
    if (inner.empty() || called_function(f, inner.back()) != stage) continue;

    // The prologue is the body's load at i = 0: it declares `i = 0` first, then only
    // declarations the body leads with, word for word.
    size_t after = 1;
    std::set<std::string> leading;
    for (; after < body.size(); ++after) {
      std::optional<declaration_line> d = pure_declaration(f, body[after]);
      if (!d) break;
      leading.insert(d->text);
    }
    if (after == body.size()) continue;
    if (first.size() < 2) continue;
    std::optional<declaration_line> index = pure_declaration(f, first.front());
    const std::string index_shape = shape_of(slice(masked, first.front()));
    const std::string zero = i + "=0;";
    if (!index || index->name != i || index_shape.size() < zero.size() ||
        index_shape.compare(index_shape.size() - zero.size(), zero.size(), zero) != 0) {
      continue;
    }
    bool same_declarations = true;
    for (size_t k = 1; k + 1 < first.size(); ++k) {
      std::optional<declaration_line> d = pure_declaration(f, first[k]);
      same_declarations = same_declarations && d && leading.count(d->text) != 0;
    }
    if (!same_declarations) continue;
    edits.push_back({{first_begin, line_end(masked, close - 1) + 1}, ""});
    edits.push_back(remove_statement(masked, body[0]));
    edits.push_back({{line_begin(masked, body[after].begin), line_begin(masked, body[after].begin)},
                     line_indent(f.text(), body[after].begin) + trim(*call) + "\n"});
  }
  return edits;
}

}  // namespace aopt::agent
