// Whole statements moved into and out of a loop, the edits of the motifs that change what a loop
// repeats (the cube's L0C accumulation and L1 residency): a statement on lines of its own is
// removed where it is and written again, one statement a line, at the top or the bottom of a
// loop body or right before or after the loop, indented as the code around it.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

// Statement `s` without spaces or static_casts (shape_of), to match with a pattern.
std::string statement_shape(const kernel_facts& f, text_range s);

// The function statement `s` calls when the statement is that one call (`LoadA(k);`).
std::optional<std::string> called_function(const kernel_facts& f, text_range s);

// The body of the function statement `s` calls (called_function), when the kernel defines it.
std::optional<text_range> called_function_body(const kernel_facts& f, text_range s);

// The original text of statement `s`, when it is on one line of its own; nullopt otherwise.
std::optional<std::string> single_line_statement(const kernel_facts& f, text_range s);

// The braced loop statement `s` starts with, when its "{" ends a line and its "}" starts one (a
// statement can be put at the top or the bottom of its body); nullopt otherwise.
std::optional<loop_range> loop_at(const kernel_facts& f, text_range s);

// The indentation of `loop`'s own line, and of the statements of its body (the loop's plus the
// step between the two, four spaces when the body is empty).
std::string loop_indent(const kernel_facts& f, const loop_range& loop);
std::string body_indent(const kernel_facts& f, const loop_range& loop);

// Insertions of `lines` (each without its indentation), one a line, with `indent` before each.
// REQUIRES for the body's top and bottom: a loop as loop_at() returns it.
text_edit insert_at_body_top(const kernel_facts& f, const loop_range& loop,
                             const std::vector<std::string>& lines, const std::string& indent);
text_edit insert_at_body_bottom(const kernel_facts& f, const loop_range& loop,
                                const std::vector<std::string>& lines, const std::string& indent);
text_edit insert_before_loop(const kernel_facts& f, const loop_range& loop,
                             const std::vector<std::string>& lines);
text_edit insert_after_loop(const kernel_facts& f, const loop_range& loop,
                            const std::vector<std::string>& lines);

// `LocalTensor<T> x = q.<method><T>();` (spaces free): its type, variable and queue.
struct queue_tensor_declaration {
  std::string type;
  std::string variable;
  std::string queue;
};
std::optional<queue_tensor_declaration> queue_tensor_declared(const kernel_facts& f, text_range s,
                                                              const std::string& method);

}  // namespace aopt::agent
