#include "agent/motifs/core_split_edits.hpp"

#include <optional>
#include <regex>
#include <string>

#include "agent/kernel_text/source_text.hpp"
#include "agent/motifs/kernel_rule_support.hpp"

namespace aopt::agent {

namespace {

// `for (T v = GetBlockIdx(); v < bound; v += GetBlockNum())`: each core takes every
// GetBlockNum()-th value of v, starting at its own index.
struct core_strided_loop {
  std::string type;
  std::string variable;
  std::string bound;
};

std::optional<core_strided_loop> read_core_strided_loop(const kernel_facts& f,
                                                        const loop_range& loop) {
  static const std::regex header(
      R"(^\(\s*((?:[\w:]+\s+)+)([A-Za-z_]\w*)\s*=\s*(?:AscendC::)?GetBlockIdx\(\)\s*;\s*([A-Za-z_]\w*)\s*<\s*([\s\S]+?)\s*;\s*([A-Za-z_]\w*)\s*\+=\s*(?:AscendC::)?GetBlockNum\(\)\s*\)$)");
  if (f.masked().compare(loop.keyword, 3, "for") != 0) return std::nullopt;
  const std::string h = f.text().substr(loop.header.begin, loop.header.end - loop.header.begin);
  std::smatch m;
  if (!std::regex_match(h, m, header) || m[2] != m[3] || m[2] != m[5]) return std::nullopt;
  return core_strided_loop{trim(std::string(m[1])), m[2], trim(std::string(m[4]))};
}

bool mentions(const std::string& text, const std::string& identifier) {
  return find_identifier(text, identifier) != std::string::npos;
}

// The divisor D of a grid index `v`: the body reads both `v / D` and `v % D`, D one identifier.
std::optional<std::string> grid_divisor(const std::string& body, const std::string& v) {
  const std::regex modulo("(?:^|[^\\w.>])" + v + R"(\s*%\s*([A-Za-z_]\w*)\b)");
  std::smatch m;
  if (!std::regex_search(body, m, modulo)) return std::nullopt;
  const std::string d = m[1];
  const std::regex quotient("(?:^|[^\\w.>])" + v + R"(\s*/\s*)" + d + R"(\b)");
  if (!std::regex_search(body, quotient)) return std::nullopt;
  return d;
}

// `block` (the text between a body's braces) with every line after the first shifted by one
// indent unit: right when `deeper`, else left by up to one unit. Blank lines stay blank.
std::string shifted(const std::string& block, bool deeper) {
  const std::string unit = kIndentUnit;
  std::string out;
  for (size_t i = 0; i < block.size(); ++i) {
    out += block[i];
    if (block[i] != '\n' || i + 1 == block.size() || block[i + 1] == '\n') continue;
    if (deeper) {
      out += unit;
    } else {
      size_t spaces = 0;
      while (spaces < unit.size() && i + 1 + spaces < block.size() && block[i + 1 + spaces] == ' ')
        ++spaces;
      i += spaces;
    }
  }
  return out;
}

// The text between the braces of `body` ('{' to '}' included).
std::string inside(const std::string& text, text_range body) {
  return text.substr(body.begin + 1, body.end - body.begin - 2);
}

}  // namespace

std::vector<text_edit> line_split_edits(const kernel_facts& f) {
  const std::string& text = f.text();
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    const std::optional<core_strided_loop> grid = read_core_strided_loop(f, loop);
    if (!grid) continue;
    const std::string body = masked.substr(loop.body.begin, loop.body.end - loop.body.begin);
    const std::optional<std::string> d = grid_divisor(body, grid->variable);
    if (!d || mentions(*d, grid->variable)) continue;
    const std::string column = fresh_identifier(text, grid->variable + "Column");
    const std::string line = fresh_identifier(text, grid->variable + "Line");
    const std::string indent = line_indent(text, loop.keyword);
    const std::string& t = grid->type;
    const std::string inner = indent + kIndentUnit;
    edits.push_back({{loop.keyword, loop.body.end},
                     "for (" + t + " " + column + " = GetBlockIdx(); " + column + " < " + *d +
                         "; " + column + " += GetBlockNum()) {\n" + inner + "for (" + t + " " +
                         line + " = 0; " + line + " < (" + grid->bound + ") / " + *d + "; " + line +
                         "++) {\n" + inner + kIndentUnit + t + " " + grid->variable + " = " + line +
                         " * " + *d + " + " + column + ";" +
                         shifted(inside(text, loop.body), true) + "}\n" + indent + "}"});
  }
  return edits;
}

std::vector<text_edit> grid_split_edits(const kernel_facts& f) {
  const std::string& text = f.text();
  const std::string& masked = f.masked();
  std::vector<text_edit> edits;
  const std::vector<loop_range> loops = find_loops(masked, {0, masked.size()});
  for (const loop_range& outer : loops) {
    const std::optional<core_strided_loop> lines = read_core_strided_loop(f, outer);
    if (!lines) continue;
    const std::vector<text_range> statements = split_statements(masked, outer.body);
    if (statements.size() != 1) continue;
    const loop_range* inner = nullptr;
    for (const loop_range& l : loops) {
      if (l.keyword == statements[0].begin) inner = &l;
    }
    if (inner == nullptr || inner->body.end != statements[0].end) continue;
    const std::optional<counted_loop> columns = read_counted_loop(f, *inner);
    const std::optional<loop_declaration> column_declared = declared_loop_variable(f, *inner);
    if (!columns || !column_declared || columns->step != "1" ||
        mentions(columns->bound, lines->variable)) {
      continue;
    }
    // The rewind's own form (line_split_edits): give the expert's flat loop back, as it was.
    const std::vector<text_range> inner_statements = split_statements(masked, inner->body);
    const std::string inner_body = inside(text, inner->body);
    const std::string tile_decl =
        inner_statements.empty()
            ? std::string()
            : trim(text.substr(inner_statements[0].begin,
                               inner_statements[0].end - inner_statements[0].begin));
    static const std::regex rewound_decl(
        R"(^((?:[\w:]+\s+)+)([A-Za-z_]\w*)\s*=\s*(\w+)\s*\*\s*(\w+)\s*\+\s*(\w+)\s*;$)");
    std::smatch decl;
    const std::string flat_bound_suffix = ")/" + lines->bound;
    const std::string bound_shape = shape_of(columns->bound);
    if (std::regex_match(tile_decl, decl, rewound_decl) && decl[3] == columns->variable &&
        decl[4] == lines->bound && decl[5] == lines->variable && bound_shape.size() > 1 &&
        bound_shape[0] == '(' && bound_shape.size() > flat_bound_suffix.size() &&
        bound_shape.compare(bound_shape.size() - flat_bound_suffix.size(), flat_bound_suffix.size(),
                            flat_bound_suffix) == 0) {
      const std::string variable = decl[2];
      const std::string bound = unwrap(trim(columns->bound.substr(0, columns->bound.rfind('/'))));
      const size_t after_decl = text.find('\n', inner_statements[0].end);
      const std::string rest = inner_body.substr(after_decl - (inner->body.begin + 1));
      edits.push_back({{outer.keyword, outer.body.end},
                       "for (" + lines->type + " " + variable + " = GetBlockIdx(); " + variable +
                           " < " + bound + "; " + variable + " += GetBlockNum()) {" +
                           shifted(rest, false) + "}"});
      continue;
    }
    const std::string cell = fresh_identifier(text, lines->variable + columns->variable);
    const std::string indent = line_indent(text, outer.keyword) + kIndentUnit;
    const std::string& c = columns->bound;
    edits.push_back({{outer.keyword, outer.body.end},
                     "for (" + lines->type + " " + cell + " = GetBlockIdx(); " + cell + " < (" +
                         lines->bound + ") * (" + c + "); " + cell + " += GetBlockNum()) {\n" +
                         indent + lines->type + " " + lines->variable + " = " + cell + " / (" + c +
                         ");\n" + indent + column_declared->type + " " + columns->variable + " = " +
                         cell + " % (" + c + ");" + shifted(inside(text, inner->body), false) +
                         "}"});
  }
  return edits;
}

}  // namespace aopt::agent
