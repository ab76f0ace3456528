// Editing helpers shared by the kernel rule libraries (rewind_rules, optimization_rules):
// range replacements, statement lines, blocks and integer constants of a source text.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

struct text_edit {
  text_range range;
  std::string replacement;
};

// `text` with every edit applied. REQUIRES: the ranges do not overlap.
std::string apply_edits(const std::string& text, std::vector<text_edit> edits);

// The lines holding `statement` (from the start of its first line to the end of its last,
// without the final '\n') when nothing else shares them; nullopt otherwise.
std::optional<text_range> own_lines(const std::string& masked, text_range statement);

// The statement (up to and including ';') that starts with the call at `call_begin`, when the
// call is the whole statement: only a receiver chain ("obj.", "ptr->") may precede it on the
// statement and only ';' may follow it.
std::optional<text_range> call_statement(const std::string& masked, size_t call_begin,
                                         text_range parens);

// Every braced region of the masked text ('{' to '}' included), in order of the '{'.
std::vector<text_range> find_blocks(const std::string& masked);

// `[static] const|constexpr <type> NAME = <integer literal>[suffix];`
struct int_constant {
  std::string name;
  int64_t value = 0;
  text_range literal;  // the digits (and sign) of the value
};
std::vector<int_constant> find_int_constants(const std::string& masked);

// Lines joined with '\n', each prefixed with `indent` (empty lines stay empty).
std::string indented(const std::vector<std::string>& lines, const std::string& indent);

}  // namespace aopt::agent
