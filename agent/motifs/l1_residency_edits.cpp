#include "agent/motifs/l1_residency_edits.hpp"

#include <optional>
#include <string>

#include "agent/kernel_text/source_text.hpp"
#include "agent/motifs/kernel_rule_support.hpp"
#include "agent/motifs/statement_moves.hpp"

namespace aopt::agent {

namespace {

// A one-call statement of a member function whose body fills L1 queue `queue` (EnQue on it).
std::optional<std::string> operand_load(const kernel_facts& f, text_range s,
                                        const std::string& queue) {
  std::optional<text_range> body = called_function_body(f, s);
  if (!body) return std::nullopt;
  const std::string body_shape = shape_of(f.masked().substr(body->begin, body->end - body->begin));
  if (body_shape.find(queue + ".EnQue(") == std::string::npos) return std::nullopt;
  return single_line_statement(f, s);
}

struct resident_block {
  std::string load;
  std::string dequeue;
  std::string release;
};

// `load; x = q.DeQue<T>();` and `q.FreeTensor(x);` as statements `load_at`, `load_at + 1` and
// `release_at` of `s`.
std::optional<resident_block> read_block(const kernel_facts& f, const std::vector<text_range>& s,
                                         size_t load_at, size_t release_at) {
  std::optional<queue_tensor_declaration> x = queue_tensor_declared(f, s[load_at + 1], "DeQue");
  if (!x || !f.is_l1_queue(x->queue)) return std::nullopt;
  const text_range r = s[release_at];
  if (statement_shape(f, r) != x->queue + ".FreeTensor(" + x->variable + ");") {
    return std::nullopt;
  }
  std::optional<std::string> load = operand_load(f, s[load_at], x->queue);
  std::optional<std::string> dequeue = single_line_statement(f, s[load_at + 1]);
  std::optional<std::string> release = single_line_statement(f, r);
  if (!load || !dequeue || !release) return std::nullopt;
  return resident_block{*load, *dequeue, *release};
}

}  // namespace

std::vector<text_edit> reload_operand_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (text_range block : find_blocks(masked)) {
    std::vector<text_range> s = split_statements(masked, block);
    for (size_t i = 0; i + 3 < s.size(); ++i) {
      std::optional<loop_range> loop = loop_at(f, s[i + 2]);
      if (!loop) continue;
      std::optional<resident_block> operand = read_block(f, s, i, i + 3);
      if (!operand) continue;
      const std::string indent = body_indent(f, *loop);
      return {remove_statement(masked, s[i]), remove_statement(masked, s[i + 1]),
              insert_at_body_top(f, *loop, {operand->load, operand->dequeue}, indent),
              insert_at_body_bottom(f, *loop, {operand->release}, indent),
              remove_statement(masked, s[i + 3])};
    }
  }
  return {};
}

std::vector<text_edit> resident_operand_edits(const kernel_facts& f) {
  const std::string& masked = f.masked();
  for (const loop_range& loop : find_loops(masked, {0, masked.size()})) {
    const std::optional<loop_declaration> declared = declared_loop_variable(f, loop);
    if (!declared) continue;
    const std::string& v = declared->variable;
    std::vector<text_range> s = split_statements(masked, loop.body);
    if (s.size() < 3) continue;
    std::optional<resident_block> operand = read_block(f, s, 0, s.size() - 1);
    if (!operand) continue;
    // The block must be the same in every iteration: its load names nothing the loop changes.
    if (find_identifier(masked.substr(s[0].begin, s[0].end - s[0].begin), v) != std::string::npos)
      continue;
    return {insert_before_loop(f, loop, {operand->load, operand->dequeue}),
            remove_statement(masked, s[0]), remove_statement(masked, s[1]),
            remove_statement(masked, s.back()), insert_after_loop(f, loop, {operand->release})};
  }
  return {};
}

}  // namespace aopt::agent
