#include "agent/motifs/invariant_hoisting_edits.hpp"

#include <optional>
#include <regex>
#include <set>
#include <string>

#include "agent/kernel_text/source_text.hpp"
#include "agent/motifs/kernel_rule_support.hpp"

namespace aopt::agent {

namespace {

// `DataCopy(local, gm, n);` as a whole statement, with plain variables for both tensors.
struct invariant_load {
  text_range statement;
  std::string destination;
  std::string source;
  std::string count;
};

bool is_plain_identifier(const std::string& s) {
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  return std::regex_match(s, identifier);
}

std::optional<invariant_load> as_load(const kernel_facts& f, text_range s) {
  std::optional<call_site> copy = whole_call(f, s, "DataCopy");
  if (!copy || copy->arguments.size() != 3) return std::nullopt;
  const std::vector<std::string>& args = copy->arguments;
  if (!is_plain_identifier(args[0]) || !is_plain_identifier(args[1])) return std::nullopt;
  if (f.is_global(args[0]) || !f.is_global(args[1])) return std::nullopt;
  if (f.text().find('\n', s.begin) < s.end) return std::nullopt;  // one line, moved as it is
  return invariant_load{s, args[0], args[1], args[2]};
}

std::set<std::string> identifiers_in(const std::string& text) {
  static const std::regex identifier(R"([A-Za-z_]\w*)");
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), identifier), end; it != end; ++it) {
    out.insert(it->str());
  }
  return out;
}

// The load reads the same data in every iteration of `loop`.
bool invariant_in(const kernel_facts& f, const invariant_load& load, const loop_range& loop) {
  std::set<std::string> changed = assigned_in(slice(f.masked(), loop.header));
  std::set<std::string> in_body = assigned_in(slice(f.masked(), loop.body));
  changed.insert(in_body.begin(), in_body.end());
  std::set<std::string> used = identifiers_in(load.count);
  used.insert(load.destination);
  used.insert(load.source);
  for (const std::string& name : used) {
    if (changed.count(name) != 0) return false;
  }
  return true;
}

// No AscendC API call of the loop body but `except` has `tensor` as its first argument (the
// destination of every data and vector API). Member functions called from the loop are not
// looked into: the evaluation checks what the text cannot show.
bool only_read_in(const kernel_facts& f, const std::string& tensor, const loop_range& loop,
                  text_range except) {
  const std::regex written(R"(([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(\s*)" + tensor + R"(\b)");
  const std::string body = slice(f.masked(), loop.body);
  for (std::sregex_iterator it(body.begin(), body.end(), written), end; it != end; ++it) {
    const std::string api = (*it)[1].str();
    if (!is_vector_api(api) && api != "DataCopy" && api != "DataCopyPad") continue;
    const size_t at = loop.body.begin + static_cast<size_t>(it->position());
    if (at < except.begin || at >= except.end) return false;
  }
  return true;
}

// The innermost braced block holding `pos`.
std::optional<text_range> enclosing_block(const std::string& masked, size_t pos) {
  std::optional<text_range> best;
  for (const text_range& b : find_blocks(masked)) {
    if (b.begin < pos && pos < b.end && (!best || b.begin > best->begin)) best = b;
  }
  return best;
}

// The loop whose keyword starts statement `s`, when `s` is one.
std::optional<loop_range> loop_at(const std::string& masked, text_range block, text_range s) {
  for (const loop_range& loop : find_loops(masked, block)) {
    if (loop.keyword == s.begin) return loop;
  }
  return std::nullopt;
}

bool alone_on_line_start(const std::string& masked, size_t pos) {
  const size_t begin = line_begin(masked, pos);
  return trim(std::string_view(masked).substr(begin, pos - begin)).empty();
}

}  // namespace

std::vector<text_edit> invariant_reload_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const call_site& call : find_calls(f.text(), masked, "DataCopy", {0, masked.size()})) {
    if (inside_loop(masked, call.name_begin)) continue;
    std::optional<text_range> block = enclosing_block(masked, call.name_begin);
    if (!block) continue;
    std::vector<text_range> stmts = split_statements(masked, *block);
    size_t i = 0;
    while (i < stmts.size() && stmts[i].begin != call.name_begin) ++i;
    if (i == stmts.size()) continue;
    std::optional<invariant_load> load = as_load(f, stmts[i]);
    if (!load) continue;
    for (size_t k = i + 1; k < stmts.size(); ++k) {
      std::optional<loop_range> loop = loop_at(masked, *block, stmts[k]);
      if (!loop) continue;
      if (find_identifier(slice(masked, loop->body), load->destination) == std::string::npos ||
          !invariant_in(f, *load, *loop)) {
        continue;
      }
      std::vector<text_range> body = split_statements(masked, loop->body);
      const std::string indent = body.empty() ? line_indent(f.text(), loop->keyword) + kIndentUnit
                                              : line_indent(f.text(), body.front().begin);
      const std::string barrier = "\n" + indent + "PipeBarrier<PIPE_ALL>();";
      return {{{loop->body.begin + 1, loop->body.begin + 1},
               barrier + "\n" + indent + slice(f.text(), load->statement) + barrier}};
    }
  }
  return {};
}

std::vector<text_edit> hoist_invariant_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    std::optional<text_range> block = enclosing_block(masked, loop.keyword);
    if (!block || !alone_on_line_start(masked, loop.keyword)) continue;
    std::vector<text_range> outside = split_statements(masked, *block);
    size_t at = 0;
    while (at < outside.size() && outside[at].begin != loop.keyword) ++at;
    if (at == outside.size()) continue;  // the loop is not a statement of its block
    std::vector<text_range> body = split_statements(masked, loop.body);
    for (size_t i = 0; i < body.size(); ++i) {
      std::optional<invariant_load> load = as_load(f, body[i]);
      if (!load || !invariant_in(f, *load, loop) ||
          !only_read_in(f, load->destination, loop, load->statement)) {
        continue;
      }
      std::vector<text_edit> edits;
      if (i > 0 && is_full_barrier(masked, body[i - 1])) {
        edits.push_back(remove_statement(masked, body[i - 1]));
      }
      edits.push_back(remove_statement(masked, body[i]));
      if (i + 1 < body.size() && is_full_barrier(masked, body[i + 1])) {
        edits.push_back(remove_statement(masked, body[i + 1]));
      }
      const std::string shape = shape_of(slice(masked, body[i]));
      bool loaded_before = false;
      for (size_t k = 0; k < at; ++k) loaded_before |= shape_of(slice(masked, outside[k])) == shape;
      if (!loaded_before) {
        // Moved, the tensor must exist before the loop.
        const size_t declared = find_identifier(masked, load->destination, block->begin);
        if (declared >= loop.keyword) continue;
        const std::string indent = line_indent(f.text(), loop.keyword);
        edits.push_back(
            {{line_begin(masked, loop.keyword), line_begin(masked, loop.keyword)},
             indent + slice(f.text(), body[i]) + "\n" + indent + "PipeBarrier<PIPE_ALL>();\n"});
      }
      return edits;
    }
  }
  return {};
}

}  // namespace aopt::agent
