#include "agent/motifs/optimization_edits.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"
#include "agent/kernel_text/tiling_names.hpp"
#include "agent/motifs/bottleneck_phrases.hpp"
#include "agent/motifs/kernel_rule_support.hpp"

namespace aopt::agent {

namespace {

std::string regex_escape(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

bool is_barrier(const std::string& masked, text_range s) {
  return !barrier_pipe(masked, s).empty();
}

// The statement of `s`'s block right before / after it.
struct neighbours {
  std::optional<text_range> before;
  std::optional<text_range> after;
};

std::optional<neighbours> neighbours_of(const std::string& masked, text_range s) {
  for (const text_range& block : find_blocks(masked)) {
    if (s.begin <= block.begin || s.end >= block.end) continue;
    std::vector<text_range> stmts = split_statements(masked, block);
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].begin != s.begin || stmts[i].end != s.end) continue;
      neighbours n;
      if (i > 0) n.before = stmts[i - 1];
      if (i + 1 < stmts.size()) n.after = stmts[i + 1];
      return n;
    }
  }
  return std::nullopt;
}

// single_to_double_buffer ----------------------------------------------------------------------

// The buffer count of a queue's InitBuffer that double buffering replaces: the literal 1, or a
// runtime count (a tiling field such as `bufferNum`, which the host may have set to 1). A named
// kernel constant is left to the constant edit below, which knows its value.
bool replaceable_buffer_count(const std::string& count, const std::set<std::string>& constants) {
  static const std::regex literal(R"(^\d+[uU]?$)");
  if (count == "1" || count == "1u" || count == "1U") return true;
  if (std::regex_match(count, literal)) return false;
  return constants.count(count) == 0;
}

}  // namespace

namespace {

// Edits setting queue buffer counts to "2": each queue InitBuffer whose count `replace` accepts
// (given the kernel's constant names), and each buffer-count constant equal to `constant_value`.
template <typename Accept, typename Queue>
std::vector<text_edit> buffer_count_edits(const kernel_facts& f, Accept replace,
                                          int64_t constant_value, Queue accept_queue) {
  std::vector<text_edit> edits;
  const std::string& masked = f.masked();
  const std::vector<int_constant> constants = find_int_constants(masked);
  std::set<std::string> constant_names;
  for (const int_constant& c : constants) constant_names.insert(c.name);
  // A constant is a queue depth by what the kernel does with it (the count of a queue's
  // InitBuffer), however it is named (BUFFER_NUM, QUE_DEPTH, kSlots), or by its name.
  std::set<std::string> depth_constants;
  for (const call_site& call : find_calls(f.text(), masked, "InitBuffer", {0, masked.size()})) {
    // Public kernels also have member functions named InitBuffer, called with no argument.
    if (call.arguments.size() != 3) continue;
    const std::string queue = operand_base(call.arguments[0]);
    if (!f.is_queue(queue) || !accept_queue(queue)) continue;
    if (constant_names.count(trim(call.arguments[1])) != 0)
      depth_constants.insert(trim(call.arguments[1]));
    if (!replace(call.arguments[1], constant_names)) continue;
    edits.push_back({call.argument_ranges[1], "2"});
  }
  for (const int_constant& c : constants) {
    const bool depth = depth_constants.count(c.name) != 0 ||
                       classify_tiling_name(c.name) == tiling_role::buffer_num;
    if (depth && c.value == constant_value) edits.push_back({c.literal, "2"});
  }
  return edits;
}

}  // namespace

std::vector<text_edit> double_buffer_edits(const kernel_facts& f) {
  // The cube's queues have motifs of their own (l1_single_to_double_buffer): doubling L0 as well
  // overflows it.
  return buffer_count_edits(f, replaceable_buffer_count, 1,
                            [&](const std::string& q) { return !f.is_cube_queue(q); });
}

std::vector<text_edit> double_buffer_depth_edits(const kernel_facts& f) {
  static const std::regex two(R"(^2[uU]?$)");
  return buffer_count_edits(
      f,
      [](const std::string& count, const std::set<std::string>&) {
        return std::regex_match(count, two);
      },
      2, [&](const std::string& q) { return !f.is_cube_queue(q); });
}

// l1_single_to_double_buffer ------------------------------------------------------------------

std::vector<text_edit> l1_double_buffer_edits(const kernel_facts& f) {
  std::vector<text_edit> edits;
  const std::string& masked = f.masked();
  std::set<std::string> constant_names;
  for (const int_constant& c : find_int_constants(masked)) constant_names.insert(c.name);
  for (const call_site& call : find_calls(f.text(), masked, "InitBuffer", {0, masked.size()})) {
    if (call.arguments.size() != 3 || !f.is_l1_queue(operand_base(call.arguments[0]))) continue;
    if (!replaceable_buffer_count(trim(call.arguments[1]), constant_names)) continue;
    edits.push_back({call.argument_ranges[1], "2"});
  }
  return edits;
}

// remove_stage_barriers ------------------------------------------------------------------------

std::vector<text_edit> stage_barrier_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  const bool flags =
      masked.find("SetFlag") != std::string::npos && masked.find("WaitFlag") != std::string::npos;
  if (!f.uses_queues() && !flags) return {};
  std::vector<text_edit> edits;
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    std::vector<text_range> stmts = split_statements(masked, loop.body);
    for (size_t i = 1; i < stmts.size(); ++i) {
      if (is_full_barrier(masked, stmts[i]) && is_stage_call(f, stmts[i - 1])) {
        edits.push_back(remove_statement(masked, stmts[i]));
      }
    }
  }
  return edits;
}

namespace {

// scalar_loop_to_vector ------------------------------------------------------------------------

struct vector_form {
  std::string api;
  std::string dst, a, b;  // b: second tensor or scalar expression
  bool scalar = false;
};

// The tensor `x` of `x.GetValue(i)` (wrappers allowed), nullopt for anything else.
std::optional<std::string> get_operand(const std::string& expr, const std::string& i) {
  static const std::regex get(R"(^([A-Za-z_]\w*)\s*\.\s*GetValue\s*\(\s*([A-Za-z_]\w*)\s*\)$)");
  std::smatch m;
  std::string e = unwrap(expr);
  if (std::regex_match(e, m, get) && m[2] == i) return std::string(m[1]);
  return std::nullopt;
}

// The target tensor and value of `d.SetValue(i, value);`.
std::optional<std::pair<std::string, std::string>> set_value(const std::string& statement,
                                                             const std::string& i) {
  static const std::regex set(R"(^\s*([A-Za-z_]\w*)\s*\.\s*SetValue\s*\(([\s\S]*)\)\s*;\s*$)");
  std::smatch m;
  if (!std::regex_match(statement, m, set)) return std::nullopt;
  std::vector<std::string> args = split_arguments(std::string(m[2]));
  if (args.size() != 2 || args[0] != i) return std::nullopt;
  return std::make_pair(std::string(m[1]), args[1]);
}

// `body` holds the loop body's statements as written.
std::optional<vector_form> match_scalar_loop(const std::vector<std::string>& body,
                                             const std::string& i) {
  static const std::map<char, std::string> binary = {
      {'+', "Add"}, {'-', "Sub"}, {'*', "Mul"}, {'/', "Div"}};
  static const std::map<char, std::string> scalar_api = {{'+', "Adds"}, {'*', "Muls"}};
  if (body.size() == 1) {
    auto set = set_value(body[0], i);
    if (!set) return std::nullopt;
    std::optional<binary_split> b = split_binary(set->second);
    if (!b) return std::nullopt;
    std::optional<std::string> lhs = get_operand(b->lhs, i);
    std::optional<std::string> rhs = get_operand(b->rhs, i);
    if (lhs && rhs) return vector_form{binary.at(b->op), set->first, *lhs, *rhs, false};
    if (scalar_api.count(b->op) == 0) return std::nullopt;
    if (lhs && invariant_scalar(b->rhs, i)) {
      return vector_form{scalar_api.at(b->op), set->first, *lhs, unwrap(b->rhs), true};
    }
    if (rhs && invariant_scalar(b->lhs, i)) {
      return vector_form{scalar_api.at(b->op), set->first, *rhs, unwrap(b->lhs), true};
    }
    return std::nullopt;
  }
  if (body.size() == 3) {
    static const std::regex temp(
        R"(^\s*(?:float|double|int64_t|int32_t|half)\s+([A-Za-z_]\w*)\s*=\s*([\s\S]+?)\s*;\s*$)");
    std::smatch m1;
    std::smatch m2;
    if (!std::regex_match(body[0], m1, temp) || !std::regex_match(body[1], m2, temp))
      return std::nullopt;
    std::optional<std::string> a = get_operand(m1[2], i);
    std::optional<std::string> b = get_operand(m2[2], i);
    if (!a || (!b && !invariant_scalar(m2[2], i))) return std::nullopt;
    auto set = set_value(body[2], i);
    if (!set) return std::nullopt;
    const std::string x = regex_escape(m1[1]);
    const std::string y = regex_escape(m2[1]);
    std::smatch m3;
    std::string chosen = shape_of(set->second);
    if (!std::regex_match(
            chosen, m3,
            std::regex(R"(^\(*)" + x + "([<>])" + y + R"(\?)" + x + ":" + y + R"(\)*$)"))) {
      return std::nullopt;
    }
    bool is_max = m3[1] == ">";
    if (b) return vector_form{is_max ? "Max" : "Min", set->first, *a, *b, false};
    return vector_form{is_max ? "Maxs" : "Mins", set->first, *a, unwrap(m2[2]), true};
  }
  return std::nullopt;
}

}  // namespace

std::vector<text_edit> vectorize_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    std::optional<counted_loop> c = read_counted_loop(f, loop);
    if (!c || c->step != "1") continue;
    std::vector<std::string> body;
    for (const text_range& s : split_statements(masked, loop.body)) {
      body.push_back(f.text().substr(s.begin, s.end - s.begin));
    }
    std::optional<vector_form> form = match_scalar_loop(body, c->variable);
    if (!form) continue;
    std::optional<std::string> type = f.element_type(form->dst);
    if (!type) continue;
    std::string b = form->scalar ? "static_cast<" + *type + ">(" + form->b + ")" : form->b;
    std::string call = form->api + "(" + form->dst + ", " + form->a + ", " + b + ", " +
                       unwrap_count(c->bound) + ");";
    text_range stmt{loop.keyword, loop.body.end};
    std::optional<text_range> lines = own_lines(masked, stmt);
    if (!lines) continue;
    std::vector<text_edit> edits = {{*lines, line_indent(f.text(), lines->begin) + call}};
    // The full barriers that fenced the scalar loop: a vector barrier is enough now.
    if (std::optional<neighbours> n = neighbours_of(masked, stmt)) {
      auto relax = [&](const std::optional<text_range>& barrier, bool before) {
        if (!barrier || !is_full_barrier(masked, *barrier)) return;
        std::optional<neighbours> beyond = neighbours_of(masked, *barrier);
        std::optional<text_range> other =
            beyond ? (before ? beyond->before : beyond->after) : std::nullopt;
        if (other && is_barrier(masked, *other)) {
          edits.push_back(remove_statement(masked, *barrier));
        } else {
          edits.push_back({*barrier, "PipeBarrier<PIPE_V>();"});
        }
      };
      relax(n->before, true);
      relax(n->after, false);
    }
    return edits;
  }
  return {};
}

namespace {

// merge_chunked_copies -------------------------------------------------------------------------

std::optional<std::string> unshifted_operand(const std::string& operand,
                                             const std::string& offset) {
  std::string t = trim(operand);
  const std::string o = regex_escape(offset);
  std::smatch m;
  if (std::regex_match(t, m, std::regex(R"(^([A-Za-z_]\w*)\s*\[\s*)" + o + R"(\s*\]$)"))) {
    return std::string(m[1]);
  }
  if (std::regex_match(
          t, m, std::regex(R"(^([A-Za-z_]\w*)\s*\[\s*\(([\s\S]*)\)\s*\+\s*)" + o + R"(\s*\]$)"))) {
    return std::string(m[1]) + "[" + trim(std::string(m[2])) + "]";
  }
  if (std::regex_match(t, m,
                       std::regex(R"(^([A-Za-z_]\w*)\s*\[([\s\S]*?)\s*\+\s*)" + o + R"(\s*\]$)"))) {
    return std::string(m[1]) + "[" + trim(std::string(m[2])) + "]";
  }
  return std::nullopt;
}

}  // namespace

std::vector<text_edit> merge_copy_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    std::optional<counted_loop> c = read_counted_loop(f, loop);
    if (!c || c->step == "1") continue;
    std::vector<text_range> stmts = split_statements(masked, loop.body);
    if (stmts.size() != 1) continue;
    std::vector<call_site> calls = find_calls(f.text(), masked, "DataCopy", stmts[0]);
    if (calls.size() != 1 || calls[0].arguments.size() != 3) continue;
    std::optional<text_range> whole = call_statement(masked, calls[0].name_begin, calls[0].parens);
    if (!whole || whole->begin != stmts[0].begin) continue;
    std::optional<std::string> dst = unshifted_operand(calls[0].arguments[0], c->variable);
    std::optional<std::string> src = unshifted_operand(calls[0].arguments[1], c->variable);
    if (!dst || !src) continue;
    std::optional<text_range> lines = own_lines(masked, {loop.keyword, loop.body.end});
    if (!lines) continue;
    edits.push_back({*lines, line_indent(f.text(), lines->begin) + "DataCopy(" + *dst + ", " +
                                 *src + ", " + unwrap_count(c->bound) + ");"});
  }
  return edits;
}

// enlarge_tile ---------------------------------------------------------------------------------

std::vector<text_edit> enlarge_tile_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  static const std::regex shrunk(
      R"(\(\s*([A-Za-z_]\w*)\s*>=\s*(256|4)\s*\?\s*([A-Za-z_]\w*)\s*/\s*(256|4)\s*(?:\*\s*64\s*)?:\s*([A-Za-z_]\w*)\s*\))");
  std::vector<text_edit> edits;
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), shrunk);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m[1] != m[3] || m[1] != m[5] || m[2] != m[4]) continue;
    bool rows_form = m[2] == "4" && std::string(m[0]).find('*') == std::string::npos;
    bool tile_form = m[2] == "256" && std::string(m[0]).find('*') != std::string::npos;
    if (!rows_form && !tile_form) continue;
    edits.push_back(
        {{static_cast<size_t>(m.position(0)), static_cast<size_t>(m.position(0) + m.length(0))},
         m[1]});
  }
  if (!edits.empty()) return edits;
  for (const int_constant& c : find_int_constants(masked)) {
    if (classify_tiling_name(c.name) == tiling_role::tile_size && c.value >= 16) {
      return {{c.literal, std::to_string(c.value * 2)}};
    }
  }
  return {};
}

namespace {

// Whether the kernel derives a loop count from the member `member` by a ceiling division
// (`(n + member - 1) / member`) outside `setter`, the function body that sets it (where the bare
// name is the host's value, a parameter), so that a smaller member still covers every element.
bool counts_tiles_by_ceiling(const std::string& masked, const std::string& member,
                             text_range setter) {
  const std::regex ceiling(R"(\+\s*((?:this\s*->\s*)?)()" + member +
                           R"()\s*-\s*1\s*\)\s*/\s*(?:this\s*->\s*)?)" + member + R"(\b)");
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), ceiling);
       it != std::sregex_iterator(); ++it) {
    const size_t at = static_cast<size_t>(it->position(0));
    if ((*it)[1].length() > 0 || at < setter.begin || at >= setter.end) return true;
  }
  return false;
}

// The innermost of `blocks` holding `at`; the whole text when none does.
text_range enclosing_block(const std::string& masked, const std::vector<text_range>& blocks,
                           size_t at) {
  text_range best{0, masked.size()};
  for (const text_range& b : blocks) {
    if (b.begin <= at && at < b.end && b.end - b.begin < best.end - best.begin) best = b;
  }
  return best;
}

}  // namespace

std::vector<text_edit> tile_split_edits(const kernel_facts& f, int parts) {
  const std::string& masked = f.masked();
  const std::string n = std::to_string(parts);
  const std::vector<text_range> blocks = find_blocks(masked);
  std::vector<text_edit> edits;
  for (const tile_member_assignment& a : tile_member_assignments(masked)) {
    if (!counts_tiles_by_ceiling(masked, a.member, enclosing_block(masked, blocks, a.at))) continue;
    const std::string& v = a.value;
    // Element tiles stay multiples of 32 elements (32-byte DataCopy blocks for any dtype).
    edits.push_back(
        {a.value_range, a.rows ? "(" + v + " >= " + n + " ? " + v + " / " + n + " : " + v + ")"
                               : "(" + v + " >= " + std::to_string(32 * parts) + " ? " + v + " / " +
                                     n + " / 32 * 32 : " + v + ")"});
  }
  return edits;
}

namespace {

// naive_to_balanced_split ----------------------------------------------------------------------

// The parameter names of the function whose body is `block`; nullopt when the block is not a
// function body (`name(...) {`, no qualifiers between ')' and '{').
std::optional<std::set<std::string>> parameter_names(const std::string& text,
                                                     const std::string& masked, text_range block) {
  size_t close = block.begin;
  while (close > 0 && std::isspace(static_cast<unsigned char>(masked[close - 1]))) --close;
  if (close == 0 || masked[close - 1] != ')') return std::nullopt;
  --close;
  size_t open = close;
  for (int depth = 0;; --open) {
    if (masked[open] == ')') ++depth;
    if (masked[open] == '(' && --depth == 0) break;
    if (open == 0) return std::nullopt;
  }
  static const std::regex callee(R"((\w+)\s*$)");
  static const std::set<std::string> statements = {"if", "for", "while", "switch", "catch"};
  std::smatch m;
  std::string head = masked.substr(0, open);
  if (!std::regex_search(head, m, callee) || statements.count(m[1]) != 0) return std::nullopt;
  static const std::regex name(R"((\w+)\s*(?:=[\s\S]*)?$)");
  std::set<std::string> names;
  for (const std::string& p : split_arguments(text.substr(open + 1, close - open - 1))) {
    if (std::regex_search(p, m, name)) names.insert(m[1]);
  }
  return names;
}

// The parameter of `names` whose identifier words are `words`, nullopt when none is.
std::optional<std::string> parameter_with_words(const std::set<std::string>& names,
                                                const std::vector<std::string>& words) {
  for (const std::string& n : names) {
    if (identifier_words(n) == words) return n;
  }
  return std::nullopt;
}

}  // namespace

std::vector<text_edit> balanced_split_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  static const std::regex naive_offset(R"(^(\w+)=(\w+)\*(\w+);$)");
  static const std::regex naive_length(R"(^((?:this->)?\w+)=(\w+);$)");
  for (const text_range& block : find_blocks(masked)) {
    std::vector<text_range> stmts = split_statements(masked, block);
    auto shape = [&](size_t k) {
      return shape_of(masked.substr(stmts[k].begin, stmts[k].end - stmts[k].begin));
    };
    for (size_t i = 0; i + 1 < stmts.size(); ++i) {
      std::smatch off;
      std::smatch len;
      std::string first = shape(i);
      std::string second = shape(i + 1);
      if (!std::regex_match(first, off, naive_offset) ||
          !std::regex_match(second, len, naive_length) || len[2] != off[3]) {
        continue;
      }
      const std::string block_idx = off[2];
      const std::string offset = off[1];
      const std::string tail = off[3];
      const std::string length = len[1];
      std::vector<std::string> words = identifier_words(tail);
      if (words.empty() || words[0] != "tail") continue;
      bool remainder = false;
      for (size_t k = i + 2; k < stmts.size() && !remainder; ++k) {
        remainder = last_core_takes_remainder(shape(k), block_idx, offset, length);
      }
      if (!remainder) continue;
      // The former cores' count and length must be at hand, as parameters of this function.
      std::optional<std::set<std::string>> params = parameter_names(f.text(), masked, block);
      if (!params) continue;
      words[0] = "former";
      std::optional<std::string> former_length = parameter_with_words(*params, words);
      std::optional<std::string> former_num = parameter_with_words(*params, {"former", "num"});
      std::optional<text_range> lines = own_lines(masked, {stmts[i].begin, stmts[i + 1].end});
      if (!former_length || !former_num || !lines) continue;
      const std::string& fl = *former_length;
      const std::string& fn = *former_num;
      std::vector<std::string> out = {"if (" + block_idx + " < " + fn + ") {",
                                      kIndentUnit + offset + " = " + block_idx + " * " + fl + ";",
                                      kIndentUnit + length + " = " + fl + ";",
                                      "} else {",
                                      kIndentUnit + offset + " = " + fn + " * " + fl + " + (" +
                                          block_idx + " - " + fn + ") * " + tail + ";",
                                      kIndentUnit + length + " = " + tail + ";",
                                      "}"};
      return {{*lines, indented(out, line_indent(f.text(), lines->begin))}};
    }
  }
  return {};
}

// full_barrier_to_flags ------------------------------------------------------------------------

std::vector<text_edit> barrier_flag_edits(const kernel_facts& f) {
  std::optional<std::string> pipe = f.pipe_access();
  if (!pipe) return {};
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  std::set<size_t> done;
  for (const text_range& block : find_blocks(masked)) {
    std::vector<text_range> stmts = split_statements(masked, block);
    // Adds the pipes of statement k to `into`; false at a barrier (the scan stops there).
    auto collect = [&](size_t k, std::vector<pipe_kind>& into) {
      if (is_barrier(masked, stmts[k])) return false;
      for (pipe_kind p : f.pipes(stmts[k]))
        if (std::find(into.begin(), into.end(), p) == into.end()) into.push_back(p);
      return true;
    };
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (!is_full_barrier(masked, stmts[i]) || done.count(stmts[i].begin) != 0) continue;
      // A full barrier orders every pipe issued before it against every pipe after it: the
      // flags must order each pair the statements on either side use, not only the nearest
      // two (a copy-in read by both the scalar unit and MTE3 needs MTE2_S and MTE2_MTE3). A
      // block may run again (a loop body, a function called in a loop): before its first
      // barrier ran the tail of its previous run, after its last barrier runs the head of the
      // next one.
      std::vector<pipe_kind> before;
      size_t k = i;
      while (k > 0 && collect(k - 1, before)) --k;
      if (k == 0) {
        for (size_t w = stmts.size(); w-- > i + 1 && collect(w, before);) {
        }
      }
      std::vector<pipe_kind> after;
      k = i + 1;
      while (k < stmts.size() && collect(k, after)) ++k;
      if (k == stmts.size()) {
        for (size_t w = 0; w < i && collect(w, after); ++w) {
        }
      }
      std::vector<std::string> orders;
      for (pipe_kind b : before) {
        for (pipe_kind a : after) {
          if (b == pipe_kind::scalar && a == pipe_kind::scalar) continue;
          if (b == a) {
            orders.push_back(std::string("PipeBarrier<PIPE_") + pipe_name(b) + ">();");
            continue;
          }
          const std::string hard = std::string("HardEvent::") + pipe_name(b) + "_" + pipe_name(a);
          // flagEvent for the first order; a later one names its pair (flagEventMTE2MTE3).
          const std::string event = fresh_identifier(
              f.text(), orders.empty() ? std::string("flagEvent")
                                       : std::string("flagEvent") + pipe_name(b) + pipe_name(a));
          orders.push_back("event_t " + event + " = static_cast<event_t>(" + *pipe +
                           "FetchEventID(" + hard + "));");
          orders.push_back("SetFlag<" + hard + ">(" + event + ");");
          orders.push_back("WaitFlag<" + hard + ">(" + event + ");");
        }
      }
      if (orders.empty()) continue;
      std::string replacement;
      if (orders.size() == 1) {
        replacement = orders[0];
      } else {
        const std::string indent = line_indent(f.text(), stmts[i].begin);
        replacement = "{\n";
        for (const std::string& o : orders) replacement += indent + kIndentUnit + o + "\n";
        replacement += indent + "}";
      }
      done.insert(stmts[i].begin);
      edits.push_back({stmts[i], replacement});
    }
  }
  return edits;
}

// remove_gm_round_trip -------------------------------------------------------------------------

std::vector<text_edit> round_trip_removal_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  static const std::regex copy(R"(^DataCopy\(([^,]+),([^,]+),(.+)\);$)");
  std::vector<text_edit> edits;
  for (const text_range& block : find_blocks(masked)) {
    std::vector<text_range> s = split_statements(masked, block);
    for (size_t i = 0; i + 4 < s.size(); ++i) {
      auto shape = [&](size_t k) {
        return shape_of(f.text().substr(s[k].begin, s[k].end - s[k].begin));
      };
      std::smatch m0;
      std::smatch m2;
      std::string first = shape(i);
      std::string back = shape(i + 2);
      if (!std::regex_match(first, m0, copy) || !std::regex_match(back, m2, copy)) continue;
      if (!is_full_barrier(masked, s[i + 1]) || !is_full_barrier(masked, s[i + 3])) continue;
      if (m2[1] != m0[2] || m2[2] != m0[1] || m2[3] != m0[3] || shape(i + 4) != first) continue;
      for (size_t k = i + 1; k <= i + 4; ++k) edits.push_back(remove_statement(masked, s[k]));
      i += 4;
    }
  }
  return edits;
}

// divide_to_reciprocal_multiply ----------------------------------------------------------------

namespace {

bool mentions(const kernel_facts& f, text_range s, const std::string& name) {
  return find_identifier(std::string_view(f.masked()).substr(s.begin, s.end - s.begin), name) !=
         std::string::npos;
}

}  // namespace

std::vector<text_edit> reciprocal_edits(const kernel_facts& f) {
  static const std::regex reciprocal(R"(^static_cast<float>\(1\)\s*/\s*\(([\s\S]*)\)$)");
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  std::set<size_t> removed;
  for (const text_range& block : find_blocks(masked)) {
    std::vector<text_range> stmts = split_statements(masked, block);
    for (size_t i = 1; i < stmts.size(); ++i) {
      std::optional<call_site> div = whole_call(f, stmts[i], "Div");
      if (!div || div->arguments.size() != 4) continue;
      const std::string divisor = div->arguments[2];
      const std::string base = operand_base(divisor);
      if (base.empty() || f.element_type(base) != "float") continue;
      // The divisor's last writer before the Div: a Duplicate of one scalar.
      size_t j = i;
      while (j > 0 && !mentions(f, stmts[j - 1], base)) --j;
      if (j == 0) continue;
      std::optional<call_site> dup = whole_call(f, stmts[--j], "Duplicate");
      if (!dup || dup->arguments.size() != 3 || dup->arguments[0] != divisor) continue;
      std::smatch m;
      const std::string& value = dup->arguments[1];
      const bool inverse = std::regex_match(value, m, reciprocal);
      const std::string scalar =
          inverse ? trim(std::string(m[1])) : "static_cast<float>(1) / (" + value + ")";
      const std::vector<std::string>& a = div->arguments;
      edits.push_back(
          {stmts[i], "Muls(" + a[0] + ", " + a[1] + ", " + scalar + ", " + a[3] + ");"});
      // The Duplicate goes when nothing else reads the divisor: the Div overwrote it, or no
      // later statement of the block mentions it.
      bool later = false;
      for (size_t k = i + 1; k < stmts.size(); ++k) later = later || mentions(f, stmts[k], base);
      if ((operand_base(a[0]) != base && later) || !removed.insert(stmts[j].begin).second) continue;
      edits.push_back(remove_statement(masked, stmts[j]));
      // The vector barrier the de-optimization put between its Duplicate and Div goes with them.
      if (inverse && j + 2 == i &&
          shape_of(masked.substr(stmts[j + 1].begin, stmts[j + 1].end - stmts[j + 1].begin)) ==
              "PipeBarrier<PIPE_V>();") {
        edits.push_back(remove_statement(masked, stmts[j + 1]));
      }
    }
  }
  return edits;
}

}  // namespace aopt::agent
