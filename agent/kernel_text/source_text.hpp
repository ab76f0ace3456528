// Text-level helpers for reading and editing C++ sources (tiling programs and AscendC kernels)
// without a C++ parser: lines, a comment/string mask, bracket matching, function bodies, loops,
// statements and call arguments.
//
// Every search runs on a *masked* copy of the source (comments and literal bodies blanked out,
// same length, newlines kept), so offsets found there are valid in the original text and edits
// are made on the original. The helpers understand the subset of C++ that operator sources use;
// they never throw and return npos / nullopt / empty when a construct is not recognised.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/text_trim.hpp"

namespace aopt::agent {

// A half-open range [begin, end) of offsets into a source text.
struct text_range {
  size_t begin = 0;
  size_t end = 0;
};

// The lines of `text` without their '\n'. A final '\n' does not start another line.
std::vector<std::string> split_lines(std::string_view text);
// Inverse of split_lines: joins with '\n' and appends one when `trailing_newline`.
std::string join_lines(const std::vector<std::string>& lines, bool trailing_newline);
bool ends_with_newline(std::string_view text);

// Trims and collapses every run of whitespace to one space.
std::string normalize_space(std::string_view text);

// `source` with comments and the contents of string and character literals replaced by spaces
// (newlines kept): same length, same offsets, only code left to search.
std::string mask_comments_and_strings(std::string_view source);

// The offset of the bracket closing the one at `open` ('(', '[' or '{') in masked text, npos
// when unbalanced.
size_t find_matching(std::string_view masked, size_t open);

bool is_identifier_char(char c);
// The first occurrence of `word` as a whole identifier at or after `from`, npos if none.
size_t find_identifier(std::string_view text, std::string_view word, size_t from = 0);
// The offset of the first non-space character at or after `pos` (text.size() if none).
size_t skip_space(std::string_view text, size_t pos);

size_t line_begin(std::string_view text, size_t pos);
size_t line_end(std::string_view text, size_t pos);  // offset of the '\n' or text.size()
// The leading whitespace of the line holding `pos`.
std::string line_indent(std::string_view text, size_t pos);
// 1-based line number of `pos`.
size_t line_number(std::string_view text, size_t pos);

// The braced body ('{' to its matching '}', both included) of the first definition of a
// function or member function called `name` in masked text: `name(...)` followed by optional
// qualifiers and '{'. nullopt when there is none.
std::optional<text_range> find_function_body(std::string_view masked, std::string_view name);

// A `for (...) {...}` or `while (...) {...}` loop with a braced body.
struct loop_range {
  size_t keyword = 0;  // offset of "for" / "while"
  text_range header;   // '(' to ')' included
  text_range body;     // '{' to '}' included
};
// Loops whose keyword lies inside `within`, outermost first, in source order (nested loops are
// listed too).
std::vector<loop_range> find_loops(std::string_view masked, text_range within);
// True when `pos` lies inside the body of any loop of the text.
bool inside_loop(std::string_view masked, size_t pos);

// The top-level statements of a braced block `block` ('{' to '}' included) in masked text:
// each range runs from the statement's first character to its ';' (included) or, for a
// compound statement (if/for/while/a nested block), to the closing '}' of its last block.
std::vector<text_range> split_statements(std::string_view masked, text_range block);

// The arguments of a call, split at top-level commas and trimmed. `args` is the text between
// the parentheses.
std::vector<std::string> split_arguments(std::string_view args);

// A call `name(...)` found in masked text.
struct call_site {
  size_t name_begin = 0;
  text_range parens;                        // '(' to ')' included
  std::vector<std::string> arguments;       // from the original text, trimmed
  std::vector<text_range> argument_ranges;  // where each trimmed argument lies
};
// Every call of `name` (optionally with template arguments, `name<...>(`) inside `within`,
// in source order. Arguments are taken from `original`, which `masked` was made from.
std::vector<call_site> find_calls(std::string_view original, std::string_view masked,
                                  std::string_view name, text_range within);

// Lowercase words of an identifier split at underscores, digits-letter boundaries and
// camelCase humps: "tileLength" -> {tile, length}, "BUFFER_NUM" -> {buffer, num},
// "UBSize" -> {ub, size}.
std::vector<std::string> identifier_words(std::string_view identifier);

// An identifier not occurring in `text`, made from `stem` plus a numeric suffix if needed.
std::string fresh_identifier(std::string_view text, const std::string& stem);

// The names a piece of code refers to on its own: its identifiers, except those that follow `.`,
// `->` or `::` (members and qualified names) and those inside comments, strings or numbers.
std::set<std::string> free_identifiers(std::string_view code);

// `code` with each identifier free_identifiers() would list replaced by its entry in
// `replacements` (identifiers without one are kept).
std::string replace_free_identifiers(std::string_view code,
                                     const std::map<std::string, std::string>& replacements);

}  // namespace aopt::agent
