#include "agent/motifs/rewind_edits.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"
#include "agent/kernel_text/tiling_names.hpp"
#include "agent/motifs/bottleneck_phrases.hpp"
#include "agent/motifs/kernel_rule_support.hpp"

namespace aopt::agent {

// double_to_single_buffer -----------------------------------------------------------------

std::vector<text_edit> single_buffer_edits(const kernel_facts& f) {
  std::vector<text_edit> edits;
  const std::string& masked = f.masked();
  for (const call_site& call : find_calls(f.text(), masked, "InitBuffer", {0, masked.size()})) {
    // Public kernels also have member functions named InitBuffer, called with no argument.
    if (call.arguments.size() != 3) continue;
    const std::string queue = operand_base(call.arguments[0]);
    if (f.is_tbuf(queue) || f.is_cube_queue(queue)) continue;
    if (call.arguments[1] == "1") continue;
    edits.push_back({call.argument_ranges[1], "1"});
  }
  for (const int_constant& c : find_int_constants(masked)) {
    if (classify_tiling_name(c.name) == tiling_role::buffer_num && c.value > 1) {
      edits.push_back({c.literal, "1"});
    }
  }
  return edits;
}

// l1_double_to_single_buffer ------------------------------------------------------------------

std::vector<text_edit> l1_single_buffer_edits(const kernel_facts& f) {
  std::vector<text_edit> edits;
  const std::string& masked = f.masked();
  for (const call_site& call : find_calls(f.text(), masked, "InitBuffer", {0, masked.size()})) {
    if (call.arguments.size() != 3 || !f.is_l1_queue(operand_base(call.arguments[0]))) continue;
    if (trim(call.arguments[1]) != "2") continue;
    edits.push_back({call.argument_ranges[1], "1"});
  }
  return edits;
}

// add_full_barriers -------------------------------------------------------------------------

std::vector<text_edit> full_barrier_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::optional<text_range> process = find_function_body(masked, "Process");
  if (!process) return {};
  for (const loop_range& loop : find_loops(masked, *process)) {
    if (masked.substr(loop.body.begin, loop.body.end - loop.body.begin).find("PIPE_ALL") !=
        std::string::npos) {
      continue;
    }
    std::vector<text_edit> edits;
    for (const text_range& s : split_statements(masked, loop.body)) {
      if (!is_stage_call(f, s)) continue;
      std::optional<text_range> lines = own_lines(masked, s);
      if (!lines) continue;
      edits.push_back({{lines->end, lines->end},
                       "\n" + line_indent(f.text(), lines->begin) + "PipeBarrier<PIPE_ALL>();"});
    }
    if (edits.size() >= 2) return edits;
  }
  return {};
}

// vector_to_scalar ----------------------------------------------------------------------------

std::vector<text_edit> scalar_loop_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  struct candidate {
    call_site call;
    std::string api;
  };
  std::vector<candidate> calls;
  for (const auto& [api, op] : elementwise_apis()) {
    (void)op;
    for (call_site& c : find_calls(f.text(), masked, api, {0, masked.size()})) {
      calls.push_back({std::move(c), api});
    }
  }
  std::sort(calls.begin(), calls.end(), [](const candidate& a, const candidate& b) {
    return a.call.name_begin < b.call.name_begin;
  });
  for (const candidate& c : calls) {
    const std::vector<std::string>& args = c.call.arguments;
    if (args.size() != 4) continue;
    const elementwise_op& op = elementwise_apis().at(c.api);
    bool operands_ok = std::regex_match(args[0], identifier) &&
                       std::regex_match(args[1], identifier) &&
                       (op.scalar_operand || std::regex_match(args[2], identifier));
    if (!operands_ok) continue;
    std::optional<std::string> type = f.element_type(args[0]);
    if (!type || f.is_global(args[0]) || f.is_global(args[1])) continue;
    std::optional<std::string> compute = compute_type(*type);
    if (!compute || (op.symbol == "/" && *compute != "float")) continue;
    if (c.call.name_begin > 0 && (masked[c.call.name_begin - 1] == '.')) continue;
    std::optional<text_range> stmt = call_statement(masked, c.call.name_begin, c.call.parens);
    if (!stmt) continue;
    std::optional<text_range> lines = own_lines(masked, *stmt);
    if (!lines) continue;
    std::string i = fresh_identifier(f.text(), "scalarIdx");
    std::string lhs = "static_cast<" + *compute + ">(" + args[1] + ".GetValue(" + i + "))";
    std::string rhs = op.scalar_operand
                          ? "static_cast<" + *compute + ">(" + args[2] + ")"
                          : "static_cast<" + *compute + ">(" + args[2] + ".GetValue(" + i + "))";
    std::vector<std::string> body;
    if (op.symbol == "max" || op.symbol == "min") {
      std::string x = fresh_identifier(f.text(), "scalarLhs");
      std::string y = fresh_identifier(f.text(), "scalarRhs");
      body = {*compute + " " + x + " = " + lhs + ";", *compute + " " + y + " = " + rhs + ";",
              args[0] + ".SetValue(" + i + ", static_cast<" + *type + ">(" + x +
                  (op.symbol == "max" ? " > " : " < ") + y + " ? " + x + " : " + y + "));"};
    } else {
      body = {args[0] + ".SetValue(" + i + ", static_cast<" + *type + ">(" + lhs + " " + op.symbol +
              " " + rhs + "));"};
    }
    std::vector<std::string> out = {"PipeBarrier<PIPE_ALL>();", "for (uint32_t " + i + " = 0; " +
                                                                    i +
                                                                    " < static_cast<uint32_t>(" +
                                                                    args[3] + "); " + i + "++) {"};
    for (const std::string& b : body) out.push_back(kIndentUnit + b);
    out.push_back("}");
    out.push_back("PipeBarrier<PIPE_ALL>();");
    return {{*lines, indented(out, line_indent(f.text(), lines->begin))}};
  }
  return {};
}

// chunked_copies ------------------------------------------------------------------------------

namespace {

// Whether a DataCopy's third argument is a parameter structure (DataCopyParams, Nd2NzParams,
// a braced list or a variable of such a type) rather than an element count.
bool params_argument(const std::string& masked, const std::string& argument) {
  const std::string arg = trim(argument);
  if (arg.empty() || arg.front() == '{' || arg.find("Params") != std::string::npos) return true;
  static const std::regex identifier(R"([A-Za-z_]\w*)");
  if (!std::regex_match(arg, identifier)) return false;
  return std::regex_search(masked, std::regex("\\b\\w*Params\\w*\\s*&?\\s+" + arg + "\\b"));
}

}  // namespace

std::vector<text_edit> chunked_copy_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  std::string offset = fresh_identifier(f.text(), "chunkOffset");
  for (const call_site& call : find_calls(f.text(), masked, "DataCopy", {0, masked.size()})) {
    if (call.arguments.size() != 3 || params_argument(masked, call.arguments[2])) continue;
    const std::string dst = operand_base(call.arguments[0]);
    const std::string src = operand_base(call.arguments[1]);
    if (dst.empty() || src.empty()) continue;
    const std::string& local = f.is_global(dst) ? src : dst;
    if (f.is_global(local)) continue;
    std::optional<std::string> type = f.element_type(local);
    if (!type) continue;
    std::optional<std::string> shifted_dst = shifted_operand(call.arguments[0], offset);
    std::optional<std::string> shifted_src = shifted_operand(call.arguments[1], offset);
    if (!shifted_dst || !shifted_src) continue;
    std::optional<text_range> stmt = call_statement(masked, call.name_begin, call.parens);
    if (!stmt) continue;
    std::optional<text_range> lines = own_lines(masked, *stmt);
    if (!lines) continue;
    std::string chunk =
        "static_cast<uint32_t>(" + std::to_string(kChunkBytes) + " / sizeof(" + *type + "))";
    std::string count = "static_cast<uint32_t>(" + call.arguments[2] + ")";
    std::vector<std::string> out = {
        "for (uint32_t " + offset + " = 0; " + offset + " < " + count + "; " + offset +
            " += " + chunk + ") {",
        std::string(kIndentUnit) + "DataCopy(" + *shifted_dst + ", " + *shifted_src + ", " + count +
            " - " + offset + " < " + chunk + " ? " + count + " - " + offset + " : " + chunk + ");",
        "}"};
    edits.push_back({*lines, indented(out, line_indent(f.text(), lines->begin))});
  }
  return edits;
}

// small_tile ------------------------------------------------------------------------------------

std::vector<text_edit> small_tile_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const int_constant& c : find_int_constants(masked)) {
    if (classify_tiling_name(c.name) != tiling_role::tile_size || c.value < 128) continue;
    int64_t smaller = std::max<int64_t>(64, c.value / 4 / 64 * 64);
    if (smaller < c.value) return {{c.literal, std::to_string(smaller)}};
  }
  const std::vector<tile_member_assignment> assignments = tile_member_assignments(masked);
  if (assignments.empty()) return {};
  const tile_member_assignment& a = assignments.front();
  const std::string& v = a.value;
  return {{a.value_range, a.rows ? "(" + v + " >= 4 ? " + v + " / 4 : " + v + ")"
                                 : "(" + v + " >= 256 ? " + v + " / 256 * 64 : " + v + ")"}};
}

namespace {

// balanced_to_naive_split -----------------------------------------------------------------------

// `text` without whitespace, the shape the split patterns are matched against.
std::string squeezed(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

}  // namespace

std::vector<text_edit> naive_split_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  // Groups: block index, former count, offset, former length, length, tail length.
  static const std::regex balanced(
      R"(^if\((\w+)<(\w+)\)\{(\w+)=\1\*(\w+);((?:this->)?\w+)=\4;\}else\{\3=\2\*\4\+\(\1-\2\)\*(\w+);\5=\6;\}$)");
  for (const text_range& block : find_blocks(masked)) {
    std::vector<text_range> stmts = split_statements(masked, block);
    for (size_t i = 0; i < stmts.size(); ++i) {
      std::string shape = squeezed(masked.substr(stmts[i].begin, stmts[i].end - stmts[i].begin));
      std::smatch m;
      if (!std::regex_match(shape, m, balanced)) continue;
      bool remainder = false;
      for (size_t k = i + 1; k < stmts.size() && !remainder; ++k) {
        remainder = last_core_takes_remainder(
            squeezed(masked.substr(stmts[k].begin, stmts[k].end - stmts[k].begin)), m[1], m[3],
            m[5]);
      }
      std::optional<text_range> lines = own_lines(masked, stmts[i]);
      if (!remainder || !lines) continue;
      std::vector<std::string> out = {
          std::string(m[3]) + " = " + std::string(m[1]) + " * " + std::string(m[6]) + ";",
          std::string(m[5]) + " = " + std::string(m[6]) + ";"};
      return {{*lines, indented(out, line_indent(f.text(), lines->begin))}};
    }
  }
  return {};
}

// flags_to_full_barriers ------------------------------------------------------------------------

std::vector<text_edit> flag_barrier_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  std::vector<call_site> sets = find_calls(f.text(), masked, "SetFlag", {0, masked.size()});
  std::vector<call_site> waits = find_calls(f.text(), masked, "WaitFlag", {0, masked.size()});
  if (sets.empty() || waits.empty()) return {};
  std::vector<text_edit> edits;
  for (const call_site& w : waits) {
    std::optional<text_range> stmt = call_statement(masked, w.name_begin, w.parens);
    if (!stmt) return {};
    edits.push_back({*stmt, "PipeBarrier<PIPE_ALL>();"});
  }
  for (const call_site& s : sets) {
    std::optional<text_range> stmt = call_statement(masked, s.name_begin, s.parens);
    if (!stmt) return {};
    std::optional<text_range> lines = own_lines(masked, *stmt);
    if (lines && lines->end < masked.size()) {
      edits.push_back({{lines->begin, lines->end + 1}, ""});
    } else {
      edits.push_back({*stmt, ""});
    }
  }
  // Event ids fetched only for the removed flags would be unused variables.
  std::string after = apply_edits(f.text(), edits);
  std::string after_masked = mask_comments_and_strings(after);
  static const std::regex event_decl(R"(event_t\s+([A-Za-z_]\w*)\s*=[^;]*;)");
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), event_decl);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1];
    size_t first = find_identifier(after_masked, name);
    if (first == std::string::npos ||
        find_identifier(after_masked, name, first + 1) != std::string::npos) {
      continue;
    }
    text_range stmt{static_cast<size_t>(it->position(0)),
                    static_cast<size_t>(it->position(0) + it->length(0))};
    std::optional<text_range> lines = own_lines(masked, stmt);
    if (lines && lines->end < masked.size()) edits.push_back({{lines->begin, lines->end + 1}, ""});
  }
  return edits;
}

// extra_gm_round_trip ---------------------------------------------------------------------------

std::vector<text_edit> round_trip_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const call_site& call : find_calls(f.text(), masked, "DataCopy", {0, masked.size()})) {
    if (call.arguments.size() != 3) continue;
    std::string dst = operand_base(call.arguments[0]);
    std::string src = operand_base(call.arguments[1]);
    if (dst.empty() || src.empty() || !f.is_global(dst) || f.is_global(src)) continue;
    std::optional<text_range> stmt = call_statement(masked, call.name_begin, call.parens);
    if (!stmt) continue;
    std::optional<text_range> lines = own_lines(masked, *stmt);
    if (!lines) continue;
    const std::vector<std::string>& a = call.arguments;
    std::vector<std::string> out = {
        "DataCopy(" + a[0] + ", " + a[1] + ", " + a[2] + ");", "PipeBarrier<PIPE_ALL>();",
        "DataCopy(" + a[1] + ", " + a[0] + ", " + a[2] + ");", "PipeBarrier<PIPE_ALL>();",
        "DataCopy(" + a[0] + ", " + a[1] + ", " + a[2] + ");"};
    return {{*lines, indented(out, line_indent(f.text(), lines->begin))}};
  }
  return {};
}

// multiply_to_divide ------------------------------------------------------------------------

std::vector<text_edit> divide_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const call_site& call : find_calls(f.text(), masked, "Muls", {0, masked.size()})) {
    if (call.arguments.size() != 4) continue;
    const std::string dst = operand_base(call.arguments[0]);
    const std::string src = operand_base(call.arguments[1]);
    // The divisor tile is the destination itself, so it must not be the source.
    if (dst.empty() || src.empty() || dst == src || f.element_type(dst) != "float") continue;
    std::optional<text_range> stmt = call_statement(masked, call.name_begin, call.parens);
    if (!stmt) continue;
    std::optional<text_range> lines = own_lines(masked, *stmt);
    if (!lines) continue;
    const std::vector<std::string>& a = call.arguments;
    std::vector<std::string> out = {
        "Duplicate(" + a[0] + ", static_cast<float>(1) / (" + a[2] + "), " + a[3] + ");",
        "PipeBarrier<PIPE_V>();", "Div(" + a[0] + ", " + a[1] + ", " + a[0] + ", " + a[3] + ");"};
    return {{*lines, indented(out, line_indent(f.text(), lines->begin))}};
  }
  return {};
}

}  // namespace aopt::agent
