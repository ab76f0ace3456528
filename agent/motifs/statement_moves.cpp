#include "agent/motifs/statement_moves.hpp"

#include <regex>

#include "agent/motifs/kernel_rule_support.hpp"

namespace aopt::agent {

std::string statement_shape(const kernel_facts& f, text_range s) {
  return shape_of(f.masked().substr(s.begin, s.end - s.begin));
}

std::optional<std::string> called_function(const kernel_facts& f, text_range s) {
  static const std::regex plain_call(R"(^([A-Za-z_]\w*)\([^;]*\);$)");
  std::smatch m;
  const std::string shape = statement_shape(f, s);
  if (!std::regex_match(shape, m, plain_call)) return std::nullopt;
  return m[1].str();
}

std::optional<text_range> called_function_body(const kernel_facts& f, text_range s) {
  std::optional<std::string> name = called_function(f, s);
  if (!name) return std::nullopt;
  return find_function_body(f.masked(), *name);
}

std::optional<std::string> single_line_statement(const kernel_facts& f, text_range s) {
  std::optional<text_range> lines = own_lines(f.masked(), s);
  if (!lines || f.text().find('\n', s.begin) < s.end) return std::nullopt;
  return f.text().substr(s.begin, s.end - s.begin);
}

std::optional<loop_range> loop_at(const kernel_facts& f, text_range s) {
  const std::string& masked = f.masked();
  const size_t close = s.end - 1;
  for (const loop_range& loop : find_loops(masked, s)) {
    if (loop.keyword != s.begin || loop.body.end != s.end) continue;
    const size_t after_open = skip_space(masked, loop.body.begin + 1);
    const bool open_ends_line = masked.find('\n', loop.body.begin) < after_open;
    const bool close_starts_line =
        masked.find_first_not_of(" \t", line_begin(masked, close)) == close;
    if (open_ends_line && close_starts_line) return loop;
  }
  return std::nullopt;
}

std::string loop_indent(const kernel_facts& f, const loop_range& loop) {
  return line_indent(f.text(), loop.keyword);
}

std::string body_indent(const kernel_facts& f, const loop_range& loop) {
  std::vector<text_range> statements = split_statements(f.masked(), loop.body);
  if (statements.empty()) return loop_indent(f, loop) + "    ";
  return line_indent(f.text(), statements.front().begin);
}

namespace {

text_edit insertion(size_t at, const std::vector<std::string>& lines, const std::string& indent) {
  return {{at, at}, indented(lines, indent) + "\n"};
}

}  // namespace

text_edit insert_at_body_top(const kernel_facts& f, const loop_range& loop,
                             const std::vector<std::string>& lines, const std::string& indent) {
  return insertion(line_end(f.text(), loop.body.begin) + 1, lines, indent);
}

text_edit insert_at_body_bottom(const kernel_facts& f, const loop_range& loop,
                                const std::vector<std::string>& lines, const std::string& indent) {
  return insertion(line_begin(f.text(), loop.body.end - 1), lines, indent);
}

text_edit insert_before_loop(const kernel_facts& f, const loop_range& loop,
                             const std::vector<std::string>& lines) {
  return insertion(line_begin(f.text(), loop.keyword), lines, loop_indent(f, loop));
}

text_edit insert_after_loop(const kernel_facts& f, const loop_range& loop,
                            const std::vector<std::string>& lines) {
  return insertion(line_end(f.text(), loop.body.end - 1) + 1, lines, loop_indent(f, loop));
}

std::optional<queue_tensor_declaration> queue_tensor_declared(const kernel_facts& f, text_range s,
                                                              const std::string& method) {
  static const std::regex declaration(
      R"(^(?:AscendC::)?LocalTensor<([\w:]+)>([A-Za-z_]\w*)=([A-Za-z_]\w*)\.(\w+)<[\w:]+>\(\);$)");
  std::smatch m;
  const std::string shape = statement_shape(f, s);
  if (!std::regex_match(shape, m, declaration) || m[4] != method) return std::nullopt;
  return queue_tensor_declaration{m[1], m[2], m[3]};
}

}  // namespace aopt::agent
