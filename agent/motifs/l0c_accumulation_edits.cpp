#include "agent/motifs/l0c_accumulation_edits.hpp"

#include <algorithm>
#include <optional>
#include <regex>
#include <string>

#include "agent/kernel_text/source_text.hpp"
#include "agent/motifs/kernel_rule_support.hpp"
#include "agent/motifs/statement_moves.hpp"

namespace aopt::agent {

namespace {

// The statement is `q.<method>(x);`.
bool is_queue_call(const kernel_facts& f, text_range s, const std::string& queue,
                   const std::string& method, const std::string& tensor) {
  return statement_shape(f, s) == queue + "." + method + "(" + tensor + ");";
}

// A one-call statement that moves a CO1 tensor out of L0C: Fixpipe itself, or a call of a member
// function whose body calls Fixpipe.
std::optional<std::string> copy_out_call(const kernel_facts& f, text_range s) {
  std::optional<std::string> called = called_function(f, s);
  if (!called) return std::nullopt;
  if (*called != "Fixpipe") {
    std::optional<text_range> body = find_function_body(f.masked(), *called);
    if (!body || find_calls(f.text(), f.masked(), "Fixpipe", *body).empty()) return std::nullopt;
  }
  return single_line_statement(f, s);
}

// Every Fixpipe writes a 32-bit result as the cube computed it: no ReLU, no quantization.
bool partial_sums_add_up(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<call_site> fixpipes = find_calls(f.text(), masked, "Fixpipe", {0, masked.size()});
  if (fixpipes.empty()) return false;
  for (const call_site& c : fixpipes) {
    if (c.arguments.empty()) return false;
    std::optional<std::string> type = f.element_type(operand_base(c.arguments[0]));
    if (!type || (*type != "float" && *type != "int32_t")) return false;
  }
  static const std::regex epilogue(R"(\b(?:reluEn|quantPre|deqScalar)\b)");
  return !std::regex_search(masked, epilogue);
}

// A statement that hands the init flag to the multiplication into `tensor`: a call that passes
// `tensor` (Mmad itself, or a member function around it) or the Mmad params' cmatrixInitVal.
bool passes_init_flag(const std::string& statement, const std::string& tensor) {
  return find_identifier(statement, tensor) != std::string::npos ||
         find_identifier(statement, "cmatrixInitVal") != std::string::npos;
}

// The first-step flag `v == 0` in the one statement of `loop` that mentions it, when that
// statement passes the init flag.
std::optional<text_range> first_step_flag(const kernel_facts& f, const loop_range& loop,
                                          const std::string& v, const std::string& tensor) {
  const std::regex flag("\\b" + v + "\\s*==\\s*0\\b");
  std::optional<text_range> found;
  for (text_range s : split_statements(f.masked(), loop.body)) {
    const std::string text = f.masked().substr(s.begin, s.end - s.begin);
    std::smatch m;
    if (!std::regex_search(text, m, flag)) continue;
    if (found || !passes_init_flag(text, tensor)) return std::nullopt;
    const size_t at = s.begin + static_cast<size_t>(m.position(0));
    found = text_range{at, at + static_cast<size_t>(m.length(0))};
  }
  return found;
}

// The literal `true` in the one statement of `statements` that mentions it, when that statement
// passes the init flag.
std::optional<text_range> fresh_sum_flag(const kernel_facts& f,
                                         const std::vector<text_range>& statements,
                                         const std::string& tensor) {
  std::optional<text_range> found;
  for (text_range s : statements) {
    const std::string text = f.masked().substr(s.begin, s.end - s.begin);
    const size_t at = find_identifier(text, "true");
    if (at == std::string::npos) continue;
    if (found || !passes_init_flag(text, tensor) ||
        find_identifier(text, "true", at + 4) != std::string::npos) {
      return std::nullopt;
    }
    found = text_range{s.begin + at, s.begin + at + 4};
  }
  return found;
}

}  // namespace

std::vector<text_edit> per_step_fixpipe_edits(const kernel_facts& f) {
  if (!partial_sums_add_up(f)) return {};
  const std::string& masked = f.masked();
  for (text_range block : find_blocks(masked)) {
    std::vector<text_range> s = split_statements(masked, block);
    for (size_t i = 0; i + 3 < s.size(); ++i) {
      std::optional<queue_tensor_declaration> sum = queue_tensor_declared(f, s[i], "AllocTensor");
      if (!sum || !f.is_cube_queue(sum->queue) || f.is_l1_queue(sum->queue)) continue;
      std::optional<loop_range> loop = loop_at(f, s[i + 1]);
      if (!loop) continue;
      std::optional<counted_loop> k = read_counted_loop(f, *loop);
      if (!k) continue;
      std::optional<text_range> flag = first_step_flag(f, *loop, k->variable, sum->variable);
      if (!flag || !is_queue_call(f, s[i + 2], sum->queue, "EnQue", sum->variable)) continue;
      std::optional<std::string> allocation = single_line_statement(f, s[i]);
      std::optional<std::string> enque = single_line_statement(f, s[i + 2]);
      std::optional<std::string> copy_out = copy_out_call(f, s[i + 3]);
      if (!allocation || !enque || !copy_out) continue;
      const std::string indent = body_indent(f, *loop);
      const std::string step = indent.substr(std::min(indent.size(), loop_indent(f, *loop).size()));
      return {remove_statement(masked, s[i]),
              insert_at_body_top(f, *loop, {*allocation}, indent),
              {*flag, "true"},
              insert_at_body_bottom(
                  f, *loop,
                  {*enque, "if (" + k->variable + " > 0) {",
                   step + "SetAtomicAdd<" + sum->type + ">();", "}", *copy_out, "SetAtomicNone();"},
                  indent),
              remove_statement(masked, s[i + 2]),
              remove_statement(masked, s[i + 3])};
    }
  }
  return {};
}

std::vector<text_edit> l0c_accumulation_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  static const std::regex guarded_add(R"(^if\(([A-Za-z_]\w*)>0\)\{?SetAtomicAdd<[\w:]+>\(\);\}?$)");
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    std::optional<counted_loop> k = read_counted_loop(f, loop);
    if (!k) continue;
    std::vector<text_range> s = split_statements(masked, loop.body);
    const size_t n = s.size();
    if (n < 6) continue;
    std::optional<queue_tensor_declaration> sum = queue_tensor_declared(f, s[0], "AllocTensor");
    if (!sum || !f.is_cube_queue(sum->queue) || f.is_l1_queue(sum->queue)) continue;
    std::smatch m;
    const std::string guard = statement_shape(f, s[n - 3]);
    if (!std::regex_match(guard, m, guarded_add) || m[1] != k->variable) continue;
    if (statement_shape(f, s[n - 1]) != "SetAtomicNone();" ||
        !is_queue_call(f, s[n - 4], sum->queue, "EnQue", sum->variable)) {
      continue;
    }
    std::optional<text_range> flag =
        fresh_sum_flag(f, std::vector<text_range>(s.begin() + 1, s.end() - 4), sum->variable);
    std::optional<std::string> allocation = single_line_statement(f, s[0]);
    std::optional<std::string> enque = single_line_statement(f, s[n - 4]);
    std::optional<std::string> copy_out = copy_out_call(f, s[n - 2]);
    if (!flag || !allocation || !enque || !copy_out) continue;
    // After the loop the copy-out cannot name the loop's variable.
    if (find_identifier(*copy_out, k->variable) != std::string::npos) continue;
    return {insert_before_loop(f, loop, {*allocation}),
            remove_statement(masked, s[0]),
            {*flag, k->variable + " == 0"},
            remove_statement(masked, s[n - 4]),
            remove_statement(masked, s[n - 3]),
            remove_statement(masked, s[n - 2]),
            remove_statement(masked, s[n - 1]),
            insert_after_loop(f, loop, {*enque, *copy_out})};
  }
  return {};
}

}  // namespace aopt::agent
