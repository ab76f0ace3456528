#include "agent/motifs/fixpipe_epilogue_edits.hpp"

#include <optional>
#include <regex>
#include <string>

#include "agent/kernel_text/source_text.hpp"
#include "agent/motifs/kernel_rule_support.hpp"
#include "agent/motifs/statement_moves.hpp"

namespace aopt::agent {

namespace {

// A `Fixpipe(dst, src, params)` statement into GM, with the statements of its block.
struct fixpipe_site {
  std::vector<text_range> statements;
  size_t index = 0;  // the Fixpipe's
  std::string destination;
  std::string params;
  std::string type;  // of the destination's elements
};

std::vector<fixpipe_site> fixpipes_into_gm(const kernel_facts& f) {
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  std::vector<fixpipe_site> out;
  const std::string& masked = f.masked();
  for (text_range block : find_blocks(masked)) {
    std::vector<text_range> s = split_statements(masked, block);
    for (size_t i = 0; i < s.size(); ++i) {
      std::optional<call_site> call = whole_call(f, s[i], "Fixpipe");
      if (!call || call->arguments.size() != 3 || masked.compare(s[i].begin, 7, "Fixpipe") != 0)
        continue;
      if (!std::regex_match(call->arguments[2], identifier)) continue;
      const std::string base = operand_base(call->arguments[0]);
      std::optional<std::string> type = f.element_type(base);
      if (!f.is_global(base) || !type) continue;
      out.push_back({s, i, call->arguments[0], call->arguments[2], *type});
    }
  }
  return out;
}

// The statement before the Fixpipe that sets `params.reluEn` to `value`, and where the value is.
std::optional<text_range> relu_setting(const kernel_facts& f, const fixpipe_site& site,
                                       const std::string& value) {
  const std::regex setting("^" + site.params + R"(\.reluEn\s*=\s*)" + value + R"(\s*;$)");
  for (size_t i = 0; i < site.index; ++i) {
    const text_range s = site.statements[i];
    const std::string text = f.masked().substr(s.begin, s.end - s.begin);
    if (!std::regex_match(text, setting)) continue;
    const size_t at = s.begin + text.rfind(value);
    return text_range{at, at + value.size()};
  }
  return std::nullopt;
}

bool relu_type(const std::string& type) {
  return type == "half" || type == "float" || type == "bfloat16_t";
}

// A loop that reads `tensor` with GetValue, compares with 0 and writes 0 into it with SetValue.
bool is_relu_pass(const kernel_facts& f, text_range s, const std::string& tensor) {
  const std::string shape = statement_shape(f, s);
  if (shape.rfind("for(", 0) != 0 && shape.rfind("while(", 0) != 0) return false;
  const std::regex reads(tensor + R"(\.GetValue\()");
  // shape_of has dropped the static_casts: `(0.0f)`, `half(0)` and `0` all store zero.
  const std::regex zero_store(tensor + R"(\.SetValue\([^;]*,[(\w]*?0(?:\.0*)?f?\)*;)");
  const std::regex compares(R"([<>][(\w]*?0(?:\.0*)?f?\b)");
  return std::regex_search(shape, reads) && std::regex_search(shape, zero_store) &&
         std::regex_search(shape, compares);
}

}  // namespace

std::vector<text_edit> gm_epilogue_edits(const kernel_facts& f) {
  for (const fixpipe_site& site : fixpipes_into_gm(f)) {
    if (!relu_type(site.type)) continue;
    std::optional<text_range> enabled = relu_setting(f, site, "true");
    std::optional<std::string> fixpipe = single_line_statement(f, site.statements[site.index]);
    if (!enabled || !fixpipe) continue;
    const std::string& t = f.text();
    const std::string tile = fresh_identifier(t, "reluTile");
    const std::string row = fresh_identifier(t, "reluRow");
    const std::string col = fresh_identifier(t, "reluCol");
    const std::string p = site.params;
    const std::string at = row + " * " + p + ".dstStride + " + col;
    const std::vector<std::string> pass = {
        "PipeBarrier<PIPE_ALL>();",
        "GlobalTensor<" + site.type + "> " + tile + " = " + site.destination + ";",
        "for (uint32_t " + row + " = 0; " + row + " < " + p + ".mSize; " + row + "++) {",
        "    for (uint32_t " + col + " = 0; " + col + " < " + p + ".nSize; " + col + "++) {",
        "        if (static_cast<float>(" + tile + ".GetValue(" + at + ")) < 0.0f) {",
        "            " + tile + ".SetValue(" + at + ", static_cast<" + site.type + ">(0.0f));",
        "        }",
        "    }",
        "}",
        "DataCacheCleanAndInvalid<" + site.type + ", CacheLine::ENTIRE_DATA_CACHE>(" + tile + ");"};
    const text_range call = site.statements[site.index];
    const size_t after = line_end(t, call.end) + 1;
    return {{*enabled, "false"},
            {{after, after}, indented(pass, line_indent(t, call.begin)) + "\n"}};
  }
  return {};
}

std::vector<text_edit> fused_epilogue_edits(const kernel_facts& f) {
  static const std::regex alias(R"(^GlobalTensor<[\w:]+>([A-Za-z_]\w*)=(.+);$)");
  const std::string& masked = f.masked();
  for (const fixpipe_site& site : fixpipes_into_gm(f)) {
    if (!relu_type(site.type) || relu_setting(f, site, "true")) continue;
    const std::vector<text_range>& s = site.statements;
    std::vector<text_edit> edits;
    size_t i = site.index + 1;
    while (i < s.size() && !barrier_pipe(masked, s[i]).empty())
      edits.push_back(remove_statement(masked, s[i++]));
    std::string tensor = operand_base(site.destination);
    std::smatch m;
    const std::string next = i < s.size() ? statement_shape(f, s[i]) : "";
    if (std::regex_match(next, m, alias) && m[2] == shape_of(site.destination)) {
      tensor = m[1];
      edits.push_back(remove_statement(masked, s[i++]));
    }
    if (i >= s.size() || !is_relu_pass(f, s[i], tensor)) continue;
    edits.push_back(remove_statement(masked, s[i++]));
    const std::regex flush("^DataCacheCleanAndInvalid<[^;]*>\\(" + tensor + "\\);$");
    if (i < s.size() && std::regex_match(statement_shape(f, s[i]), flush))
      edits.push_back(remove_statement(masked, s[i++]));
    // An alias the pass declared goes with it, unless later code still names it.
    const bool alias_used_later =
        tensor != operand_base(site.destination) && i < s.size() &&
        find_identifier(masked.substr(s[i].begin, s.back().end - s[i].begin), tensor) !=
            std::string::npos;
    if (alias_used_later) continue;
    if (std::optional<text_range> disabled = relu_setting(f, site, "false")) {
      edits.push_back({*disabled, "true"});
    } else {
      const text_range call = s[site.index];
      const size_t at = line_begin(f.text(), call.begin);
      edits.push_back(
          {{at, at}, line_indent(f.text(), call.begin) + site.params + ".reluEn = true;\n"});
    }
    return edits;
  }
  return {};
}

}  // namespace aopt::agent
